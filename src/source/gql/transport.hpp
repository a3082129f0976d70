// The transport a GraphQL client talks through: one POST of a JSON body to the subgraph. Injected
// so that the simulated network can answer in-process and tests can script faults.
#pragma once

#include <atomic>
#include <optional>
#include <string>

#include "common/status.hpp"

namespace predlake::gql {

struct HttpResponse {
  int status = 200;                       // HTTP status code
  std::string body;                       // response body as received (may be malformed)
  std::optional<int64_t> retry_after_ms;  // parsed Retry-After header, when present
};

// Posts one GraphQL request body (`{"query": "..."}`) and returns the HTTP response. A non-OK
// Result means the exchange itself failed (connect error, TLS failure, timeout): a kSource status
// naming what happened. Implementations need not be thread-safe; use one per thread.
class Transport {
 public:
  virtual ~Transport() = default;
  virtual Result<HttpResponse> Post(const std::string& body) = 0;
  // A short description for error messages (the URL, or "sim (in-process)").
  virtual std::string Describe() const = 0;
  // Asks Post to give up early (returning kCancelled) once `*stop` becomes true; nullptr clears it.
  // Transports whose requests are quick may ignore it. Not owned.
  virtual void SetStopFlag(const std::atomic<bool>* stop) { (void)stop; }
};

}  // namespace predlake::gql
