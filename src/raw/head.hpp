// The subgraph's indexed head, read first in every fetch: the block every later query is pinned to
// (docs/raw.md, "Real networks").
#pragma once

#include <cstdint>
#include <string>

#include "common/status.hpp"
#include "source/gql/client.hpp"

namespace predlake::raw {

// `_meta` as graph-node answers it.
struct Head {
  int64_t block = 0;         // _meta.block.number
  int64_t timestamp_ms = 0;  // _meta.block.timestamp, in ms
  std::string deployment;    // _meta.deployment (the deployment's IPFS id)
  bool has_indexing_errors = false;
};

// Reads `_meta { deployment hasIndexingErrors block { number timestamp } }`. A null timestamp (an
// intermittent graph-node behaviour) is asked again within the client's retry budget (counted as
// a "null_head_timestamp" retry). Errors are kSource naming what was wrong.
Result<Head> FetchHead(gql::Client& client);

}  // namespace predlake::raw
