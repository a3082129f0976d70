// Deterministic fault injection for the simulated network's transports: request number n of a
// transport gets a fault chosen by hashing (faults.seed, n), with the configured rates (SimFaults).
#pragma once

#include <cstdint>

#include "config/config.hpp"
#include "source/gql/transport.hpp"

namespace predlake::sim {

enum class FaultKind { kNone, kHttp5xx, kTimeout, kHttp429, kGraphqlError, kMalformed };

// The fault for request number `request_index` (0-based). The rates are taken in the order 5xx,
// timeout, 429, GraphQL error, malformed; their sum is capped at 1.
FaultKind DecideFault(const config::SimFaults& faults, uint64_t request_index);

// Turns the normal answer into the faulty one for kHttp5xx (status 500/502/503), kHttp429
// (Retry-After 1 or 2 s), kGraphqlError (HTTP 200, an `errors` body) and kMalformed (HTTP 200, a
// truncated or non-JSON body). kNone and kTimeout return `normal` unchanged (timeouts are the
// transport's business).
gql::HttpResponse ApplyFault(FaultKind kind, const config::SimFaults& faults,
                             uint64_t request_index, gql::HttpResponse normal);

}  // namespace predlake::sim
