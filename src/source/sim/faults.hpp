// Deterministic fault injection for the simulated network's transports: request number n of a
// transport gets a fault chosen by hashing (faults.seed, n), with the configured rates (SimFaults).
// A transport made for a run mixes a salt of (run id, stream) into n (FaultIndex), so that every
// run, and every fetching thread of a run, meets its own faults: a rerun is not doomed to the very
// same ones, and a fresh lake replays the same history for tests.
#pragma once

#include <cstdint>

#include "config/config.hpp"
#include "source/gql/transport.hpp"
#include "source/sim/subgraph.hpp"

namespace predlake::sim {

enum class FaultKind { kNone, kHttp5xx, kTimeout, kHttp429, kGraphqlError, kMalformed };

// The salt of a transport made for `stream` of run `run_id`; 0 (no salt) for run 0, stream 0.
uint64_t FaultSalt(int64_t run_id, int stream);

// The index the fault of request `n` is decided by: n itself without a salt, else a hash of both.
uint64_t FaultIndex(uint64_t salt, uint64_t n);

// The fault for request number `request_index` (0-based). The rates are taken in the order 5xx,
// timeout, 429, GraphQL error, malformed; their sum is capped at 1.
FaultKind DecideFault(const config::SimFaults& faults, uint64_t request_index);

// Turns the normal answer into the faulty one for kHttp5xx (status 500/502/503), kHttp429
// (Retry-After 1 or 2 s), kGraphqlError (HTTP 200, an `errors` body) and kMalformed (HTTP 200, a
// truncated or non-JSON body). kNone and kTimeout return `normal` unchanged (timeouts are the
// transport's business).
gql::HttpResponse ApplyFault(FaultKind kind, const config::SimFaults& faults,
                             uint64_t request_index, gql::HttpResponse normal);

// The answer to request number `n` of a transport with fault salt `salt` (n counts the
// transport's requests in order; the server counts arrivals with salt 0), with every injected
// fault applied but the timeout's delay, which is the caller's:
//   - inside a throttling burst (throttle_burst, throttle_burst_length consecutive requests): HTTP
//     200 with one of graph-node's load errors ("service is overloaded ...", "query is too
//     expensive", "Query timed out", "... exceeds the limit of ... entities");
//   - else the DecideFault kind (5xx, 429, GraphQL error, malformed) as ApplyFault makes it;
//   - the engine's answer itself may come from a lagging replica (lagging_replica, replica_lag) or
//     carry a null `_meta.block.timestamp` (null_head_timestamp).
gql::HttpResponse AnswerWithFaults(const Engine& engine, const std::string& body, uint64_t salt,
                                   uint64_t n);

}  // namespace predlake::sim
