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
  // The timestamp was null: timestamp_ms is the newest event time at block (FetchHead).
  bool time_from_data = false;
};

// Reads `_meta { deployment hasIndexingErrors block { number timestamp } }`. A null timestamp (an
// intermittent graph-node behaviour) is asked again (counted as a "null_head_timestamp" retry);
// one that stays null for three reads (graph-node versions and chains that do not store it) is
// taken from the data instead: the newest timestamp of the predictions, truevals, payouts and
// subscriptions at a block at or after the head's, whose block then becomes the head's (an event's
// time is its block's, and later blocks only hold later events, so nothing before that time is
// missing there). An answer without `_meta` (`{"data": {}}`) is asked again within the budget.
// Errors are kSource naming what was wrong.
Result<Head> FetchHead(gql::Client& client);

}  // namespace predlake::raw
