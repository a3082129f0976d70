// The executor of the simulated subgraph: runs a parsed, variable-bound query document over the
// world as of an indexed head and writes the `{"data": ...}` JSON text. For each root list field it
// narrows the window of time (or slots) and the feeds from the compiled filter, generates rows
// chunk by chunk from the world, keeps those the filter matches, orders them (ties by id
// ascending), applies `skip` and `first`, and writes the selected fields. Internal to the simulated
// subgraph: Engine::Execute is its one caller.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.hpp"
#include "source/sim/graphql.hpp"
#include "source/sim/world.hpp"

namespace predlake::sim::subgraph {

// Validates `doc` against the schema (recording each field's schema entry in Field::resolved),
// compiles the arguments of its root fields, and answers it over `world` with everything after
// `head_ms` (unix ms) invisible. Returns the `{"data": ...}` text, or kSource with the GraphQL
// error. With `null_head_timestamp`, `_meta.block.timestamp` is null. A response that grows past
// `max_response_bytes` is abandoned: kSource with a GraphQL error saying so. Thread-safe for
// distinct documents (the world is only read).
Result<std::string> ExecuteDocument(const World& world, int64_t head_ms, graphql::Document& doc,
                                    bool null_head_timestamp = false,
                                    size_t max_response_bytes = size_t{32} << 20);

}  // namespace predlake::sim::subgraph
