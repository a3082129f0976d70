// The transport a GraphQL client talks through: one POST of a JSON body to the subgraph. Injected
// so that the simulated network can answer in-process and tests can script faults.
#pragma once

#include <atomic>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.hpp"

namespace predlake::gql {

struct HttpResponse {
  int status = 200;                       // HTTP status code
  std::string body;                       // response body as received (may be malformed)
  std::optional<int64_t> retry_after_ms;  // parsed Retry-After header, when present
  // Every header of the final response, names in lower case, values trimmed, in arrival order.
  std::vector<std::pair<std::string, std::string>> headers = {};

  // The first header named `lower_name` (lower case), nullopt when absent. The view lives as long
  // as this response.
  std::optional<std::string_view> Header(std::string_view lower_name) const {
    for (const auto& [name, value] : headers) {
      if (name == lower_name) return std::string_view(value);
    }
    return std::nullopt;
  }
};

// "HTTP 301, redirected to https://new.example/path": a 3xx is never followed (a POST must not
// turn into a GET on another host unseen), so its message names where the server points.
std::string DescribeHttpStatus(const HttpResponse& response);

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
