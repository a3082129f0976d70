#include "ops/runs.hpp"

#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

#include "common/time.hpp"
#include "ops/json_fields.hpp"

namespace predlake::ops {

namespace {

std::optional<int64_t> OptInt(const duck::DataChunk& chunk, size_t col, size_t row) {
  if (chunk.IsNull(col, row)) return std::nullopt;
  return chunk.GetInt64(col, row);
}

std::string OptText(const duck::DataChunk& chunk, size_t col, size_t row) {
  return chunk.IsNull(col, row) ? "" : std::string(chunk.GetString(col, row));
}

// Seconds with millisecond precision ("12.345s"): durations of runs are read by people.
std::string FormatSeconds(int64_t ms) {
  char buf[48];
  std::snprintf(buf, sizeof(buf), "%lld.%03llds", static_cast<long long>(ms / 1000),
                static_cast<long long>(ms % 1000));
  return buf;
}

// The recorded JSON text, or the text itself as a string when it does not parse (never lose it).
nlohmann::ordered_json EmbeddedJson(const std::string& text) {
  if (text.empty()) return nullptr;
  auto parsed = nlohmann::ordered_json::parse(text, nullptr, false);
  if (parsed.is_discarded()) return text;
  return parsed;
}

}  // namespace

Result<std::vector<RunInfo>> ListRuns(duck::Connection& conn, int64_t limit) {
  std::string sql =
      "SELECT run_id, command, status, started_at_ms, ended_at_ms, window_start_ms, "
      "window_end_ms, checkpoint_before_ms, checkpoint_after_ms, watermarks_before, "
      "watermarks_after, error, pid, detail FROM predlake_runs ORDER BY run_id DESC";
  if (limit > 0) sql += " LIMIT " + std::to_string(limit);
  ASSIGN_OR_RETURN(auto result, conn.Query(sql, "read runs"));
  std::vector<RunInfo> runs;
  std::map<int64_t, size_t> index;
  while (auto chunk = result.NextChunk()) {
    for (size_t r = 0; r < chunk->size(); ++r) {
      RunInfo run;
      run.run_id = chunk->GetInt64(0, r);
      run.command = OptText(*chunk, 1, r);
      run.status = OptText(*chunk, 2, r);
      run.started_at_ms = chunk->GetInt64(3, r);
      run.ended_at_ms = OptInt(*chunk, 4, r);
      run.window_start_ms = OptInt(*chunk, 5, r);
      run.window_end_ms = OptInt(*chunk, 6, r);
      run.checkpoint_before_ms = OptInt(*chunk, 7, r);
      run.checkpoint_after_ms = OptInt(*chunk, 8, r);
      run.watermarks_before = OptText(*chunk, 9, r);
      run.watermarks_after = OptText(*chunk, 10, r);
      run.error = OptText(*chunk, 11, r);
      run.pid = OptInt(*chunk, 12, r);
      run.detail = OptText(*chunk, 13, r);
      index[run.run_id] = runs.size();
      runs.push_back(std::move(run));
    }
  }
  if (runs.empty()) return runs;
  // Only the listed runs' counts: the ledger can be long.
  std::string sql_tables =
      "SELECT run_id, table_name, rows_in, rows_out, rows_updated, rows_deleted FROM "
      "predlake_run_tables WHERE run_id >= " +
      std::to_string(runs.back().run_id) + " AND run_id <= " + std::to_string(runs.front().run_id) +
      " ORDER BY run_id, table_name";
  ASSIGN_OR_RETURN(auto tables, conn.Query(sql_tables, "read run tables"));
  while (auto chunk = tables.NextChunk()) {
    for (size_t r = 0; r < chunk->size(); ++r) {
      auto it = index.find(chunk->GetInt64(0, r));
      if (it == index.end()) continue;
      runs[it->second].tables[std::string(chunk->GetString(1, r))] = {
          chunk->GetInt64(2, r), chunk->GetInt64(3, r), chunk->GetInt64(4, r),
          chunk->GetInt64(5, r)};
    }
  }
  return runs;
}

std::string SummarizeTables(const lake::TableCountsMap& tables) {
  std::string out;
  for (const auto& [table, counts] : tables) {
    if (!out.empty()) out += "; ";
    out +=
        table + " in=" + std::to_string(counts.rows_in) + " out=" + std::to_string(counts.rows_out);
    if (counts.rows_updated != 0) out += " upd=" + std::to_string(counts.rows_updated);
    if (counts.rows_deleted != 0) out += " del=" + std::to_string(counts.rows_deleted);
  }
  return out;
}

ResultSet RunsResultSet(const std::vector<RunInfo>& runs, bool brief) {
  ResultSet rs;
  if (brief) {
    rs.columns = {"run_id", "command", "status", "started", "duration", "error"};
    rs.numeric = {true, false, false, false, true, false};
  } else {
    rs.columns = {"run_id",           "command",      "status",     "started",
                  "duration",         "window_start", "window_end", "checkpoint_before",
                  "checkpoint_after", "tables",       "error"};
    rs.numeric = {true, false, false, false, true, false, false, false, false, false, false};
  }
  for (const RunInfo& run : runs) {
    std::optional<std::string> duration;
    if (run.ended_at_ms) duration = FormatSeconds(*run.ended_at_ms - run.started_at_ms);
    std::optional<std::string> error;
    if (!run.error.empty()) error = run.error;
    std::optional<std::string> tables;
    if (!run.tables.empty()) tables = SummarizeTables(run.tables);
    if (brief) {
      rs.rows.push_back({std::to_string(run.run_id), run.command, run.status,
                         FormatTime(run.started_at_ms), duration, error});
      continue;
    }
    rs.rows.push_back({std::to_string(run.run_id), run.command, run.status,
                       FormatTime(run.started_at_ms), duration, IsoOrNull(run.window_start_ms),
                       IsoOrNull(run.window_end_ms), IsoOrNull(run.checkpoint_before_ms),
                       IsoOrNull(run.checkpoint_after_ms), tables, error});
  }
  return rs;
}

nlohmann::ordered_json RunJson(const RunInfo& run) {
  nlohmann::ordered_json tables = nlohmann::ordered_json::object();
  for (const auto& [table, counts] : run.tables) {
    tables[table] = {{"rows_in", counts.rows_in},
                     {"rows_out", counts.rows_out},
                     {"rows_updated", counts.rows_updated},
                     {"rows_deleted", counts.rows_deleted}};
  }
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  j["run_id"] = run.run_id;
  j["command"] = run.command;
  j["status"] = run.status;
  j["started_at_ms"] = run.started_at_ms;
  j["started"] = FormatTime(run.started_at_ms);
  j["ended_at_ms"] = OptJson(run.ended_at_ms);
  j["ended"] = TimeJson(run.ended_at_ms);
  j["duration_ms"] =
      run.ended_at_ms ? nlohmann::ordered_json(*run.ended_at_ms - run.started_at_ms) : nullptr;
  j["window_start_ms"] = OptJson(run.window_start_ms);
  j["window_end_ms"] = OptJson(run.window_end_ms);
  j["checkpoint_before_ms"] = OptJson(run.checkpoint_before_ms);
  j["checkpoint_after_ms"] = OptJson(run.checkpoint_after_ms);
  j["watermarks_before"] = EmbeddedJson(run.watermarks_before);
  j["watermarks_after"] = EmbeddedJson(run.watermarks_after);
  j["error"] =
      run.error.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(run.error);
  j["pid"] = OptJson(run.pid);
  j["detail"] = EmbeddedJson(run.detail);
  j["tables"] = std::move(tables);
  return j;
}

void WriteRunsJson(std::ostream& out, const std::vector<RunInfo>& runs) {
  nlohmann::ordered_json arr = nlohmann::ordered_json::array();
  for (const RunInfo& run : runs) arr.push_back(RunJson(run));
  out << arr.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
}

}  // namespace predlake::ops
