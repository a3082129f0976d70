// The in-process transport: answers gql::Transport requests from a simulated Engine without
// sockets. This is how the default network `sim` is reached.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "source/exchange/exchange.hpp"
#include "source/gql/transport.hpp"
#include "source/sim/subgraph.hpp"

namespace predlake::sim {

class InProcessTransport final : public gql::Transport {
 public:
  // Faults come from engine->config().faults; request numbers count this transport's own requests,
  // mixed with `fault_salt` (FaultSalt of the run and stream it serves; 0: none).
  explicit InProcessTransport(std::shared_ptr<const Engine> engine, uint64_t fault_salt = 0);

  // Returns the engine's answer, or the injected fault: an HTTP error/429/GraphQL-error/malformed
  // response, or, for a timeout fault, a kSource "timed out" status. Not thread-safe (one transport
  // per thread; the engine itself is shared safely).
  Result<gql::HttpResponse> Post(const std::string& body) override;
  std::string Describe() const override { return "sim (in-process)"; }

  uint64_t requests() const { return requests_; }

 private:
  std::shared_ptr<const Engine> engine_;
  uint64_t fault_salt_ = 0;
  uint64_t requests_ = 0;
};

// The simulated exchange in-process (the candles of `sim`): Engine::HandleExchange with the same
// injected faults as the subgraph transport (5xx, 429 with Retry-After, timeouts, malformed
// bodies; a GraphQL-error fault arrives as a body that is not a candle array).
class InProcessExchangeTransport final : public exchange::Transport {
 public:
  explicit InProcessExchangeTransport(std::shared_ptr<const Engine> engine,
                                      uint64_t fault_salt = 0);
  Result<gql::HttpResponse> Get(const std::string& path_and_query) override;
  std::string Describe() const override { return "sim exchange (in-process)"; }

 private:
  std::shared_ptr<const Engine> engine_;
  uint64_t fault_salt_ = 0;
  uint64_t requests_ = 0;
};

}  // namespace predlake::sim
