#include "source/sim/transport.hpp"

#include <utility>

#include "source/sim/faults.hpp"

namespace predlake::sim {

InProcessTransport::InProcessTransport(std::shared_ptr<const Engine> engine, uint64_t fault_salt)
    : engine_(std::move(engine)), fault_salt_(fault_salt) {}

Result<gql::HttpResponse> InProcessTransport::Post(const std::string& body) {
  const uint64_t n = FaultIndex(fault_salt_, requests_++);
  const config::SimFaults& faults = engine_->config().faults;
  const FaultKind kind = DecideFault(faults, n);
  if (kind == FaultKind::kTimeout) {
    return Status::Source("sim (in-process): request timed out (injected fault)");
  }
  if (kind == FaultKind::kHttp5xx || kind == FaultKind::kHttp429 ||
      kind == FaultKind::kGraphqlError) {
    return ApplyFault(kind, faults, n, {});
  }
  return ApplyFault(kind, faults, n, engine_->Handle(body));
}

}  // namespace predlake::sim
