// `describe`: where the lake stands. Everything is computed with SQL aggregates (count, min, max)
// over each table; no table is read into memory.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "common/status.hpp"
#include "etl/etl.hpp"
#include "lake/lake.hpp"
#include "ops/lake_info.hpp"
#include "ops/runs.hpp"

namespace predlake::ops {

struct TableSummary {
  std::string name;
  TableKind kind = TableKind::kBuilt;
  int64_t rows = 0;
  std::string time_column;          // the SQL expression used for first/last, "" when none
  std::optional<int64_t> first_ms;  // earliest event time; nullopt when empty or no time column
  std::optional<int64_t> last_ms;   // latest event time
};

struct WatermarkSummary {
  std::string table;
  std::optional<lake::Watermark> mark;  // nullopt: never fetched or imported
};

// The health of one candle stream (docs/ohlcv.md): what its last fetch left in
// predlake_ohlcv_streams, and its known gaps.
struct CandleStreamSummary {
  std::string stream;  // "pdr_ohlcv:binance:BTC/USDT:5m"
  std::optional<lake::Watermark> mark;
  std::optional<std::string> status;  // ok | failing | set_aside; nullopt: never fetched
  std::optional<std::string> error;
  std::optional<int64_t> failing_since_ms;
  std::optional<int64_t> last_ok_ms;
  int64_t known_gaps = 0;
  std::optional<int64_t> first_gap_ms;  // the oldest known gap's open time
};

// One feed of pdr_contracts and where its metadata came from (raw::Contract::metadata_from:
// "nft", or which fallback gave each field).
struct FeedSummary {
  std::string contract;
  std::optional<std::string> pair, timeframe, source, metadata_from;
};

struct Description {
  std::string lake_dir;
  std::optional<int64_t> schema_version;
  std::optional<int64_t> created_at_ms;
  // Where the data comes from (predlake_meta, lake::kMeta*): the network recorded by the first
  // writing command, the subgraph deployment last fetched from, and, once it changed, the one
  // before it and when the change was seen. nullopt when never recorded.
  std::optional<std::string> network;
  std::optional<std::string> deployment;
  std::optional<std::string> previous_deployment;
  std::optional<int64_t> deployment_changed_at_ms;
  std::vector<TableSummary> tables;  // raw, snapshot, built, then leftover staging tables
  // One per raw table, in lake::kRawTables order, then one per candle stream
  // ("pdr_ohlcv:binance:BTC/USDT:5m") by name.
  std::vector<WatermarkSummary> watermarks;
  std::vector<FeedSummary> feeds;  // pdr_contracts, by pair, timeframe, contract
  // The candle streams by name, and the time before which the exchange asked not to be called
  // (a ban kept across runs), when that is still ahead of the lake's clock.
  std::vector<CandleStreamSummary> candle_streams;
  std::optional<int64_t> exchange_blocked_until_ms;
  // Contracts the newest fetch set aside (their events are stored; docs/raw.md): id and why.
  std::vector<std::pair<std::string, std::string>> contracts_set_aside;
  // Candle writes the ETL has not folded into the built slots yet.
  int64_t pending_candle_changes = 0;
  std::optional<lake::Checkpoint> checkpoint;
  // Set while an upgrade's new built columns wait for a rebuild (lake::kMetaRebuildRequired: what
  // was added); nullopt otherwise.
  std::optional<std::string> rebuild_required;
  // The frontier of the raw tables the ETL reads (etl::kInputTables; candle streams never hold it
  // back) and the one holding it back.
  etl::Frontier frontier;
  // Update events waiting for a row that is not built (etl::Waiting); empty before the first ETL
  // run.
  std::vector<etl::WaitingEvents> waiting;
  std::vector<RunInfo> last_runs;  // newest first
};

// Describes the lake open in `lake` (any mode). `run_limit` bounds last_runs. Errors are kData.
Result<Description> Describe(lake::Lake& lake, int64_t run_limit = 5);

// Text for people: sections Tables, Watermarks, Feeds, Checkpoint/Frontier/Waiting updates, Last
// runs.
// Tables fit `width` columns when it is > 0.
void WriteDescriptionText(std::ostream& out, const Description& d, int width);

// One JSON document (an object), then a newline. Times appear both as *_ms and ISO-8601.
void WriteDescriptionJson(std::ostream& out, const Description& d);

}  // namespace predlake::ops
