// Ground truth: the simulated world's raw tables as the lake should hold them (docs/design.md
// section 3), for `predlake sim dump` and for tests that compare the lake against the source.
//
// A dump is exactly what a complete fetch of [from_ms, to_ms) at the engine's indexed head leaves
// in the lake: the events with from_ms <= timestamp < min(to_ms, head), where head is the indexed
// head as the subgraph reports it, a whole second (the head's own second is never fetched:
// docs/sim.md), ordered by timestamp then ID. Without from_ms: from the world's start (every
// event). Timestamps are unix ms, slots unix s, booleans true/false, amounts as the subgraph
// formats them, NULL as an empty field. pdr_predictions leaves predvalue, truevalue and payout NULL
// (unknown when the prediction is made). pdr_slots lists the slots with from_ms <= slot * 1000 <
// min(to_ms, head) that exist at the head, in their state at the head (the state a fetch reads,
// whatever to_ms is).
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "common/status.hpp"
#include "config/config.hpp"
#include "source/sim/subgraph.hpp"

namespace predlake::sim {

// pdr_predictions, pdr_truevals, pdr_payouts, pdr_subscriptions, pdr_slots, pdr_ohlcv (the
// simulated exchange's candles of the feeds whose source is binance: those opening in
// [from_ms, min(to_ms, head)) that closed by the engine's now; the exchange serves candles before
// the world's start too, so from_ms may be earlier than it).
const std::vector<std::string>& DumpTableNames();

// The column names of a raw table; empty for an unknown table.
std::vector<std::string> DumpColumns(const std::string& table);

struct DumpTable {
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
};

// Calls `row` for every row in order. Returns kUsage for an unknown table.
Status ForEachDumpRow(const Engine& engine, const std::string& table, int64_t from_ms,
                      int64_t to_ms,
                      const std::function<void(const std::vector<std::string>&)>& row);
// From the world's start.
Status ForEachDumpRow(const Engine& engine, const std::string& table, int64_t to_ms,
                      const std::function<void(const std::vector<std::string>&)>& row);

// All rows in memory (for tests; mind the size of long windows).
Result<DumpTable> DumpRows(const Engine& engine, const std::string& table, int64_t from_ms,
                           int64_t to_ms);
Result<DumpTable> DumpRows(const Engine& engine, const std::string& table, int64_t to_ms);

// Writes the table as CSV (RFC 4180, header row, "\n" line ends). Returns kUsage for an unknown
// table.
Status Dump(const Engine& engine, const std::string& table, int64_t from_ms, int64_t to_ms,
            std::ostream& out);
Status Dump(const Engine& engine, const std::string& table, int64_t to_ms, std::ostream& out);

// Builds the engine for `config` at `now_ms` (the resolved SimConfig.now) and dumps.
Status Dump(const config::SimConfig& config, int64_t now_ms, const std::string& table,
            int64_t to_ms, std::ostream& out);

// Appends one CSV field, quoted when it holds a comma, quote, CR or LF.
void AppendCsvField(std::string& line, const std::string& field);

}  // namespace predlake::sim
