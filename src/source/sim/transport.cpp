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

}  // namespace predlake::sim
