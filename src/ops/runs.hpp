// The run ledger as the `runs` command and `describe` show it.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "common/status.hpp"
#include "common/table_format.hpp"
#include "duck/duck.hpp"
#include "lake/lake.hpp"

namespace predlake::ops {

// One row of predlake_runs with its per-table counts.
struct RunInfo {
  int64_t run_id = 0;
  std::string command;
  std::string status;  // running | succeeded | failed | aborted
  int64_t started_at_ms = 0;
  std::optional<int64_t> ended_at_ms;
  std::optional<int64_t> window_start_ms;
  std::optional<int64_t> window_end_ms;
  std::optional<int64_t> checkpoint_before_ms;
  std::optional<int64_t> checkpoint_after_ms;
  std::string watermarks_before;  // JSON object text, "" when not recorded
  std::string watermarks_after;
  std::string error;
  std::optional<int64_t> pid;
  std::string detail;           // JSON object text, "" when none
  lake::TableCountsMap tables;  // by table name
};

// The newest `limit` runs (all when limit <= 0), newest first. Errors are kData.
Result<std::vector<RunInfo>> ListRuns(duck::Connection& conn, int64_t limit);

// "pdr_predictions in=10 out=10; bronze_pdr_predictions in=10 out=8 upd=2", zero updated/deleted
// counts left out; "" when the run recorded no tables.
std::string SummarizeTables(const lake::TableCountsMap& tables);

// The ledger as a table for `--format table|csv`: run_id, command, status, started, duration,
// window_start, window_end, checkpoint_before, checkpoint_after, tables, error (times as ISO-8601).
// `brief` keeps run_id, command, status, started, duration and error (for describe).
ResultSet RunsResultSet(const std::vector<RunInfo>& runs, bool brief = false);

// The JSON object of one run: every field of RunInfo, times both as ms and ISO-8601, watermarks and
// detail parsed as JSON, tables as {"name": {"rows_in": ..}}.
nlohmann::ordered_json RunJson(const RunInfo& run);

// One JSON document: an array of RunJson objects, then a newline.
void WriteRunsJson(std::ostream& out, const std::vector<RunInfo>& runs);

}  // namespace predlake::ops
