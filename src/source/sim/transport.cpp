#include "source/sim/transport.hpp"

#include <utility>

#include "source/sim/faults.hpp"

namespace predlake::sim {

InProcessTransport::InProcessTransport(std::shared_ptr<const Engine> engine, uint64_t fault_salt)
    : engine_(std::move(engine)), fault_salt_(fault_salt) {}

Result<gql::HttpResponse> InProcessTransport::Post(const std::string& body) {
  const uint64_t n = requests_++;
  if (DecideFault(engine_->config().faults, FaultIndex(fault_salt_, n)) == FaultKind::kTimeout) {
    return Status::Source("sim (in-process): request timed out (injected fault)");
  }
  return AnswerWithFaults(*engine_, body, fault_salt_, n);
}

InProcessExchangeTransport::InProcessExchangeTransport(std::shared_ptr<const Engine> engine,
                                                       uint64_t fault_salt)
    : engine_(std::move(engine)), fault_salt_(fault_salt) {}

Result<gql::HttpResponse> InProcessExchangeTransport::Get(const std::string& path_and_query) {
  const uint64_t n = requests_++;
  const uint64_t index = FaultIndex(fault_salt_, n);
  const FaultKind kind = DecideFault(engine_->config().faults, index);
  if (kind == FaultKind::kTimeout) {
    return Status::Source("sim exchange (in-process): request timed out (injected fault)");
  }
  return ApplyFault(kind, engine_->config().faults, index, engine_->HandleExchange(path_and_query));
}

}  // namespace predlake::sim
