#include "etl/etl.hpp"

#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "common/time.hpp"
#include "duck/duck.hpp"
#include "etl/pipeline.hpp"
#include "etl/waiting.hpp"

namespace predlake::etl {

namespace {

// An incremental window with at most this many raw rows (all raw tables) runs on one DuckDB worker
// thread (ThreadsForWindow). On the 2-core machine one thread was as fast as two up to about
// 300k rows (a 3-day window of the 1.5M-prediction lake: 2.2-2.5 s either way, 30% less CPU) and
// slower from about 1M (10 days: 8.0 s against 5.5 s).
constexpr int64_t kOneThreadWindowRows = 200'000;

// The DuckDB worker threads for an incremental window [from, to): one for a window of few raw rows,
// whose statements each move a few thousand rows (a second worker only adds task handoffs;
// docs/scale.md has the measurements), DuckDB's default for a longer one and for a rebuild, also
// when the lake was opened with fewer (`update` opens it with one: jobs/update.hpp).
Result<duck::ThreadsSetting> ThreadsForWindow(lake::Lake& lake, Job job, int64_t from, int64_t to) {
  if (job != Job::kUpdate) return duck::ThreadsSetting::AtDefault(lake.conn());
  std::string sql = "SELECT ";
  for (const lake::TableDef& t : lake::kRawTableDefs) {
    if (sql.size() > 7) sql += " + ";
    sql += "(SELECT count(*) FROM " + std::string(t.name) + " WHERE \"" +
           std::string(t.columns[t.timestamp_column].name) + "\" >= " + std::to_string(from) +
           " AND \"" + std::string(t.columns[t.timestamp_column].name) + "\" < " +
           std::to_string(to) + ")";
  }
  ASSIGN_OR_RETURN(std::optional<int64_t> rows,
                   lake.conn().QueryInt(sql, "count the window's raw rows"));
  if (rows.value_or(0) > kOneThreadWindowRows) return duck::ThreadsSetting::AtDefault(lake.conn());
  return duck::ThreadsSetting::AtMost(lake.conn(), 1);
}

std::string JoinNames(const std::vector<std::string>& names) {
  return fmt::format("{}", fmt::join(names, ", "));
}

// Puts what the ETL did on its run: the window, the per-table counts and the detail {start_ms,
// changed, message}, beside what an earlier step of the run (`update`'s raw fetch) recorded. The
// ETL's counts of a table replace that step's counts of the same (input) table, and its window,
// once it has one, replaces that step's.
void RecordOn(lake::Run& run, const RunReport& report) {
  if (report.window_start_ms || report.window_end_ms) {
    run.SetWindow(report.window_start_ms, report.window_end_ms);
  }
  // Under `update` the fetch recorded its raw tables first (its own counts are under detail "raw");
  // the run's rows_in of an input table is what the ETL read.
  for (const auto& [table, counts] : report.tables) run.tables()[table] = counts;
  if (report.start_ms) run.detail()["start_ms"] = *report.start_ms;
  run.detail()["changed"] = report.changed;
  run.detail()["message"] = report.message;
}

// The bronze counts as one phrase: "predictions 2369 new, 20 updated; slots 270 new, 3 updated".
std::string DescribeCounts(const lake::TableCountsMap& tables) {
  auto part = [&](const char* table, const char* label) {
    auto it = tables.find(table);
    lake::TableCounts c = it == tables.end() ? lake::TableCounts{} : it->second;
    std::string out = std::string(label) + " " + std::to_string(c.rows_out) + " new, " +
                      std::to_string(c.rows_updated) + " updated";
    if (c.rows_deleted > 0) out += ", " + std::to_string(c.rows_deleted) + " deleted";
    return out;
  };
  return part("bronze_pdr_predictions", "predictions") + "; " + part("bronze_pdr_slots", "slots");
}

// Runs `body` as the ETL part of `run`: orphan staging tables dropped, the body (which finishes the
// run inside its publish transaction); on failure the staging tables are dropped (best effort: the
// next run drops them anyway) and the run is failed.
// keep_parts: a rebuild in parts, whose staged bronze tables in the lake are kept for its next part
// to resume from (BuildBody drops them when it starts over).
template <typename Body>
Result<RunReport> AsRun(lake::Lake& lake, lake::Run& run, const std::string& command, Body body,
                        bool keep_parts = false) {
  RunReport report;
  report.run_id = run.id();
  report.command = command;
  // Whatever a killed run left is dropped first, even when this run turns out to have nothing to
  // do.
  Pipeline cleanup(lake, Job::kUpdate, {}, RunOptions{}, command);
  Status st = cleanup.DropStaging(keep_parts);
  if (st.ok()) st = body(report);
  if (st.ok()) return report;
  (void)cleanup.DropStaging(keep_parts);
  RecordOn(run, report);
  return run.Fail(st);
}

// Finishes a run that had nothing to do.
Status FinishNoop(lake::Lake& lake, lake::Run& run, const RunReport& report) {
  ASSIGN_OR_RETURN(auto tx, duck::Transaction::Begin(lake.conn()));
  RecordOn(run, report);
  RETURN_IF_ERROR(run.Finish());
  return tx.Commit();
}

// Where a rebuild in parts of [start, end) by `command` resumes: the end of the last part
// committed, when the same command left it for the same window and ohlcv setting, its staged tables
// are there, and no run of another command came since (which could have changed raw or the built
// tables). nullopt: start over.
Result<std::optional<int64_t>> ResumePosition(lake::Lake& lake, const std::string& command,
                                              int64_t start, int64_t end, bool ohlcv) {
  ASSIGN_OR_RETURN(auto text, lake.GetMeta(kMetaRebuildParts));
  if (!text) return std::optional<int64_t>();
  const auto j = nlohmann::json::parse(*text, nullptr, false);
  if (!j.is_object() || j.value("command", "") != command || j.value("start_ms", -1LL) != start ||
      j.value("end_ms", -1LL) != end || j.value("ohlcv", !ohlcv) != ohlcv ||
      !j.contains("position_ms") || !j.contains("run_id")) {
    return std::optional<int64_t>();
  }
  ASSIGN_OR_RETURN(
      std::optional<int64_t> tables,
      lake.conn().QueryInt("SELECT count(*) FROM duckdb_tables() WHERE database_name = "
                           "current_database() AND NOT temporary AND table_name IN "
                           "('etl_stage_slots', 'etl_stage_predictions')",
                           "etl: find a rebuild's staged tables"));
  if (tables.value_or(0) != 2) return std::optional<int64_t>();
  ASSIGN_OR_RETURN(std::optional<int64_t> others,
                   lake.conn().QueryInt("SELECT count(*) FROM predlake_runs WHERE run_id > " +
                                            std::to_string(j["run_id"].get<int64_t>()) +
                                            " AND command <> " + duck::QuoteString(command),
                                        "etl: runs since a rebuild's last part"));
  if (others.value_or(1) != 0) return std::optional<int64_t>();
  return std::optional<int64_t>(j["position_ms"].get<int64_t>());
}

// `note` (when not empty) is appended to the run's message, in parentheses.
Status BuildBody(lake::Lake& lake, lake::Run& run, Job job, const UpdateOptions& options,
                 RunReport& report, std::string_view note = {}) {
  ASSIGN_OR_RETURN(Frontier frontier, ComputeFrontier(lake));
  if (!frontier.missing.empty()) {
    return Status::Data(
        "raw table" + std::string(frontier.missing.size() > 1 ? "s " : " ") +
        JoinNames(frontier.missing) + (frontier.missing.size() > 1 ? " have" : " has") +
        " no watermark yet (run `predlake raw update` or `predlake raw import` first)");
  }
  ASSIGN_OR_RETURN(auto checkpoint, lake.GetCheckpoint());
  if (checkpoint) report.checkpoint_before_ms = checkpoint->checkpoint_ms;
  int64_t start = checkpoint ? checkpoint->start_ms
                             : std::max(frontier.latest_start_ms,
                                        options.st_ms.value_or(frontier.latest_start_ms));
  std::string backfill_note;
  if (checkpoint && options.st_ms) {
    // The start moved earlier and every input table has been backfilled to it (docs/design.md
    // rule 7, extended): the built tables are rebuilt from raw from the new start, the exact
    // one-shot build.
    const int64_t covered = std::max(frontier.latest_start_ms, *options.st_ms);
    if (covered < checkpoint->start_ms) {
      backfill_note = "the start moved earlier from " + FormatTime(checkpoint->start_ms) + " to " +
                      FormatTime(covered) + ": rebuilt from raw";
      start = covered;
      job = Job::kRebuild;
    }
  }
  if (!backfill_note.empty()) {
    note = note.empty() ? std::string_view(backfill_note) : note;
  }
  const int64_t from = (job == Job::kRebuild || !checkpoint) ? start : checkpoint->checkpoint_ms;
  int64_t to = *frontier.frontier_ms;
  std::string limit = "the frontier " + FormatTime(to) + " (held back by " + frontier.held_by + ")";
  if (options.to_ms && *options.to_ms < to) {
    to = *options.to_ms;
    limit = "--to " + FormatTime(to);
  }
  report.start_ms = start;
  report.checkpoint_after_ms = report.checkpoint_before_ms;
  // Candles stored since the last publish (late, or corrected) are folded into the slots they
  // decide even when no subgraph event is new: the empty window at the checkpoint.
  int64_t candle_changes = 0;
  if (job == Job::kUpdate && checkpoint && to == from) {
    ASSIGN_OR_RETURN(candle_changes, PendingCandleChanges(lake));
  }
  if (to < from || (to == from && candle_changes == 0)) {
    report.window_start_ms = from;
    report.window_end_ms = from;
    if (job == Job::kRebuild) {
      report.message =
          "nothing to rebuild: the start " + FormatTime(start) + " is not before " + limit;
    } else if (checkpoint) {
      report.message =
          "nothing to do: the checkpoint " + FormatTime(from) + " is not before " + limit;
    } else {
      report.message = "nothing to do: the start " + FormatTime(from) + " is not before " + limit;
    }
    return FinishNoop(lake, run, report);
  }
  report.window_start_ms = from;
  report.window_end_ms = to;
  if (options.in_parts) {
    if (job != Job::kRebuild && checkpoint) {
      return Status::Internal("etl: an update from the checkpoint cannot run in parts");
    }
    // From the start with nothing built, an update is the rebuild of its window (docs/design.md:
    // incremental equals rebuild).
    job = Job::kRebuild;
  }

  Params params = {{"S", start},
                   {"C", from},
                   {"F", to},
                   {"CUT", from},
                   {"RUN", report.run_id},
                   {"ALL_GROUPS", job == Job::kRebuild ? 1 : 0},
                   {"DEFAULT_TIMEOUT_S", kDefaultTruevalSubmitTimeoutS},
                   {"OHLCV", options.ohlcv ? 1 : 0}};
  ASSIGN_OR_RETURN(duck::ThreadsSetting threads, ThreadsForWindow(lake, job, from, to));
  Pipeline pipeline(lake, job, std::move(params), options, report.command);
  if (!options.in_parts) {
    RETURN_IF_ERROR(pipeline.Stage());
  } else {
    ASSIGN_OR_RETURN(std::optional<int64_t> after,
                     ResumePosition(lake, report.command, start, to, options.ohlcv));
    // Starting over: a stale part's staged tables go first.
    if (!after) RETURN_IF_ERROR(pipeline.DropStaging());
    ASSIGN_OR_RETURN(auto tx, duck::Transaction::Begin(lake.conn()));
    const int64_t pass_ms =
        options.part_ms > 0 ? std::min(options.part_ms, Pipeline::kPassMs) : Pipeline::kPassMs;
    ASSIGN_OR_RETURN(Pipeline::PartStaged staged, pipeline.StagePart({after, pass_ms}));
    // No pass left: the last part staged its pass, then failed before its publish committed.
    report.part_index = static_cast<int64_t>(std::min(staged.pass_index + 1, staged.pass_count));
    report.part_count = static_cast<int64_t>(staged.pass_count);
    run.detail()["chunk"] = {{"index", report.part_index}, {"of", report.part_count}};
    nlohmann::ordered_json position = {{"command", report.command},
                                       {"start_ms", start},
                                       {"end_ms", to},
                                       {"ohlcv", options.ohlcv},
                                       {"position_ms", staged.pass_to},
                                       {"run_id", report.run_id}};
    RETURN_IF_ERROR(lake.SetMeta(kMetaRebuildParts, position.dump()));
    if (!staged.last) {
      report.more = true;
      report.window_start_ms = staged.pass_from;
      report.window_end_ms = staged.pass_to;
      report.message = report.command + ": part " + std::to_string(report.part_index) + "/" +
                       std::to_string(report.part_count) + " [" + FormatTime(staged.pass_from) +
                       ", " + FormatTime(staged.pass_to) + ") of [" + FormatTime(from) + ", " +
                       FormatTime(to) + ") staged; the last part publishes";
      RecordOn(run, report);
      RETURN_IF_ERROR(run.Finish());
      auto commit_start = std::chrono::steady_clock::now();
      RETURN_IF_ERROR(pipeline.CheckFault("commit"));
      RETURN_IF_ERROR(tx.Commit());
      report.step_ms = pipeline.timings();
      report.step_ms.emplace_back("commit", MsSince(commit_start));
      return Status::Ok();
    }
    RETURN_IF_ERROR(tx.Commit());
  }
  report.tables = pipeline.counts();
  report.changed = true;
  report.checkpoint_after_ms = to;
  report.message =
      report.command + ": [" + FormatTime(from) + ", " + FormatTime(to) +
      "): " + DescribeCounts(report.tables) + "; checkpoint " + FormatTime(to) +
      (to == *frontier.frontier_ms ? "" : " (frontier " + FormatTime(*frontier.frontier_ms) + ")");
  if (!note.empty()) report.message += " (" + std::string(note) + ")";
  {
    ASSIGN_OR_RETURN(auto tx, duck::Transaction::Begin(lake.conn()));
    WaitingMaintenance waiting(lake, job, pipeline.params());
    RETURN_IF_ERROR(waiting.Prepare());
    RETURN_IF_ERROR(pipeline.Publish());
    auto commit_start = std::chrono::steady_clock::now();
    RETURN_IF_ERROR(lake.SetCheckpoint({start, to}, report.run_id));
    auto waiting_start = std::chrono::steady_clock::now();
    RETURN_IF_ERROR(waiting.Finish());
    const double waiting_ms = MsSince(waiting_start);
    if (job == Job::kRebuild) {
      RETURN_IF_ERROR(lake.DeleteMeta(lake::kMetaRebuildRequired));
      RETURN_IF_ERROR(lake.DeleteMeta(kMetaRebuildParts));
    }
    // The staged slots hold every candle change read above (events.sql), and a rebuild reads
    // every stored candle: the changes are folded.
    RETURN_IF_ERROR(lake.conn().Execute("DELETE FROM " + std::string(lake::kCandleChangesTable),
                                        "consume the candle changes"));
    RETURN_IF_ERROR(lake.SetMeta(kMetaBuiltWithOhlcv, options.ohlcv ? "on" : "off"));
    RecordOn(run, report);
    RETURN_IF_ERROR(run.Finish());
    RETURN_IF_ERROR(pipeline.CheckFault("commit"));
    RETURN_IF_ERROR(tx.Commit());
    report.step_ms = pipeline.timings();
    report.step_ms.emplace_back("waiting", waiting_ms);
    report.step_ms.emplace_back("commit", MsSince(commit_start));
  }
  // The run has succeeded; leftover staging tables are dropped by the next run.
  // Only an update's staging is all TEMP (a rebuild stages its bronze rows in the lake).
  if (pipeline.CheckFault("drop_staging").ok() &&
      (options.drop_staging_after || job != Job::kUpdate)) {
    (void)pipeline.DropStaging();
  }
  return Status::Ok();
}

// The part of a rollback to `from_ms` that happens before the transaction: the staging. Returns
// nullopt (and fills report.message) when there is nothing to roll back. report.message says what
// the rollback does without naming the command, so that `raw drop` can quote it.
Result<std::optional<Pipeline>> StageRollback(lake::Lake& lake, int64_t from_ms,
                                              const RunOptions& options, RunReport& report) {
  ASSIGN_OR_RETURN(auto checkpoint, lake.GetCheckpoint());
  if (checkpoint) {
    report.checkpoint_before_ms = checkpoint->checkpoint_ms;
    report.checkpoint_after_ms = checkpoint->checkpoint_ms;
    report.start_ms = checkpoint->start_ms;
  }
  if (!checkpoint) {
    report.message = "nothing to roll back: the ETL has not run yet";
    return std::optional<Pipeline>();
  }
  if (from_ms < checkpoint->checkpoint_ms) {
    ASSIGN_OR_RETURN(auto stale, lake.GetMeta(lake::kMetaRebuildRequired));
    if (stale) {
      return Status::Data("the built tables must be rebuilt before a rollback (" + *stale +
                          "): run `predlake etl rebuild` first");
    }
    ASSIGN_OR_RETURN(auto built_with, lake.GetMeta(kMetaBuiltWithOhlcv));
    if (built_with && *built_with != (options.ohlcv ? "on" : "off")) {
      return Status::Data("the built tables were built with lake_ss.ohlcv " +
                          std::string(*built_with == "on" ? "true" : "false") +
                          ": run `predlake etl rebuild` first");
    }
  }
  if (from_ms >= checkpoint->checkpoint_ms) {
    // Recorded like an `etl update` with nothing to do: the empty window at the checkpoint.
    report.window_start_ms = checkpoint->checkpoint_ms;
    report.window_end_ms = checkpoint->checkpoint_ms;
    report.message = "nothing to roll back: " + FormatTime(from_ms) +
                     " is not before the checkpoint " + FormatTime(checkpoint->checkpoint_ms);
    return std::optional<Pipeline>();
  }
  const int64_t start = checkpoint->start_ms;
  report.window_start_ms = from_ms;
  report.window_end_ms = checkpoint->checkpoint_ms;
  // Rows from the cut on are deleted and older rows are computed as of it; a cut at or before the
  // start therefore leaves nothing.
  Params params = {{"S", start},
                   {"C", from_ms},
                   {"F", from_ms},
                   {"CUT", from_ms},
                   {"RUN", report.run_id},
                   {"ALL_GROUPS", 0},
                   {"DEFAULT_TIMEOUT_S", kDefaultTruevalSubmitTimeoutS},
                   {"OHLCV", options.ohlcv ? 1 : 0}};
  std::optional<Pipeline> pipeline;
  pipeline.emplace(lake, Job::kRollback, std::move(params), options, report.command);
  RETURN_IF_ERROR(pipeline->Stage());
  report.tables = pipeline->counts();
  report.changed = true;
  if (from_ms <= start) {
    report.checkpoint_after_ms.reset();
    report.message = FormatTime(from_ms) + " is not after the start " + FormatTime(start) +
                     ": built tables emptied, checkpoint cleared";
  } else {
    report.checkpoint_after_ms = from_ms;
    report.message = "checkpoint " + FormatTime(checkpoint->checkpoint_ms) + " -> " +
                     FormatTime(from_ms) + ": " + DescribeCounts(report.tables);
  }
  return pipeline;
}

// The part of a rollback inside the caller's transaction. Sets waiting_ms to the milliseconds of
// the predlake_waiting maintenance.
Status PublishRollback(lake::Lake& lake, Pipeline& pipeline, const RunReport& report,
                       double& waiting_ms) {
  WaitingMaintenance waiting(lake, Job::kRollback, pipeline.params());
  auto start = std::chrono::steady_clock::now();
  RETURN_IF_ERROR(waiting.Prepare());
  waiting_ms = MsSince(start);
  RETURN_IF_ERROR(pipeline.Publish());
  if (report.checkpoint_after_ms) {
    RETURN_IF_ERROR(
        lake.SetCheckpoint({*report.start_ms, *report.checkpoint_after_ms}, report.run_id));
  } else {
    RETURN_IF_ERROR(lake.ClearCheckpoint());
  }
  start = std::chrono::steady_clock::now();
  RETURN_IF_ERROR(waiting.Finish());
  waiting_ms += MsSince(start);
  return Status::Ok();
}

}  // namespace

Result<int64_t> PendingCandleChanges(lake::Lake& lake) {
  ASSIGN_OR_RETURN(
      std::optional<int64_t> n,
      lake.conn().QueryInt("SELECT count(*) FROM " + std::string(lake::kCandleChangesTable),
                           "count the candle writes not folded yet"));
  return n.value_or(0);
}

Result<Frontier> ComputeFrontier(lake::Lake& lake) {
  ASSIGN_OR_RETURN(auto marks, lake.Watermarks());
  Frontier f;
  for (std::string_view table : kInputTables) {
    auto it = marks.find(std::string(table));
    if (it == marks.end()) {
      f.missing.emplace_back(table);
      continue;
    }
    f.latest_start_ms = std::max(f.latest_start_ms, it->second.start_ms);
    if (!f.frontier_ms || it->second.watermark_ms < *f.frontier_ms) {
      f.frontier_ms = it->second.watermark_ms;
      f.held_by = std::string(table);
    }
  }
  if (!f.missing.empty()) f.frontier_ms.reset();
  return f;
}

namespace {

// Adds the rows of a waiting.sql-shaped result (table, events, oldest) to `out`: events summed,
// the oldest kept, per table; a table not in `out` yet is appended in the order it comes.
Status AddWaiting(duck::QueryResult& result, std::vector<WaitingEvents>& out) {
  while (auto chunk = result.NextChunk()) {
    for (size_t r = 0; r < chunk->size(); ++r) {
      const std::string table(chunk->GetString(0, r));
      auto it = std::find_if(out.begin(), out.end(),
                             [&](const WaitingEvents& w) { return w.table == table; });
      if (it == out.end()) it = out.insert(out.end(), WaitingEvents{table, 0, std::nullopt});
      it->events += chunk->GetInt64(1, r);
      if (!chunk->IsNull(2, r)) {
        const int64_t oldest = chunk->GetInt64(2, r);
        if (!it->oldest_ms || oldest < *it->oldest_ms) it->oldest_ms = oldest;
      }
    }
  }
  return Status::Ok();
}

}  // namespace

Result<std::vector<WaitingEvents>> Waiting(lake::Lake& lake) {
  ASSIGN_OR_RETURN(bool current, WaitingIsCurrent(lake));
  if (!current) return WaitingFromRaw(lake);
  std::vector<WaitingEvents> out;
  ASSIGN_OR_RETURN(auto checkpoint, lake.GetCheckpoint());
  if (!checkpoint) return out;
  ASSIGN_OR_RETURN(std::string sql, RenderStep("waiting_counts", {}));
  ASSIGN_OR_RETURN(auto result, lake.conn().Query(sql, "etl: count waiting updates"));
  RETURN_IF_ERROR(AddWaiting(result, out));
  return out;
}

Result<std::vector<WaitingEvents>> WaitingFromRaw(lake::Lake& lake) {
  std::vector<WaitingEvents> out;
  ASSIGN_OR_RETURN(auto checkpoint, lake.GetCheckpoint());
  if (!checkpoint) return out;
  out = {{"pdr_payouts", 0, std::nullopt}, {"pdr_truevals", 0, std::nullopt}};
  ASSIGN_OR_RETURN(std::string_view text, StepSql("waiting"));
  Params params = {{"S", checkpoint->start_ms}, {"C", checkpoint->checkpoint_ms}};
  RETURN_IF_ERROR(ForEachWaitingSlotRange(lake, params, [&](const Params& range) -> Status {
    ASSIGN_OR_RETURN(std::string sql, RenderSql(text, range, "waiting"));
    ASSIGN_OR_RETURN(auto result, lake.conn().Query(sql, "etl: count waiting updates"));
    return AddWaiting(result, out);
  }));
  return out;
}

Result<std::vector<WaitingEvents>> WaitingFromRawInSlots(lake::Lake& lake, int64_t lo, int64_t hi) {
  std::vector<WaitingEvents> out;
  ASSIGN_OR_RETURN(auto checkpoint, lake.GetCheckpoint());
  if (!checkpoint) return out;
  out = {{"pdr_payouts", 0, std::nullopt}, {"pdr_truevals", 0, std::nullopt}};
  ASSIGN_OR_RETURN(std::string sql, RenderStep("waiting", {{"S", checkpoint->start_ms},
                                                           {"C", checkpoint->checkpoint_ms},
                                                           {"lo", lo},
                                                           {"hi", hi}}));
  ASSIGN_OR_RETURN(auto result, lake.conn().Query(sql, "etl: count waiting updates"));
  RETURN_IF_ERROR(AddWaiting(result, out));
  return out;
}

std::string DescribeStepTimes(const RunReport& report) {
  std::string steps;
  for (const auto& [step, ms] : report.step_ms) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "=%.1f", ms);
    steps += (steps.empty() ? "" : " ") + step + buf;
  }
  return steps;
}

Result<RunReport> Update(lake::Lake& lake, lake::Run& run, const UpdateOptions& options) {
  const std::string command = options.command.empty() ? "etl update" : options.command;
  return AsRun(
      lake, run, command,
      [&](RunReport& report) -> Status {
        ASSIGN_OR_RETURN(auto stale, lake.GetMeta(lake::kMetaRebuildRequired));
        if (!stale) {
          ASSIGN_OR_RETURN(auto built_with, lake.GetMeta(kMetaBuiltWithOhlcv));
          ASSIGN_OR_RETURN(auto checkpoint, lake.GetCheckpoint());
          if (checkpoint && built_with && *built_with != (options.ohlcv ? "on" : "off")) {
            stale = std::string("lake_ss.ohlcv changed to ") + (options.ohlcv ? "true" : "false");
          }
        }
        if (!stale) return BuildBody(lake, run, Job::kUpdate, options, report);
        // The built tables predate columns of this predlake: building on them would add deltas to
        // values never computed, so they are rebuilt from raw (to the same end an update would
        // reach).
        return BuildBody(lake, run, Job::kRebuild, options, report, "rebuilt from raw: " + *stale);
      },
      options.in_parts);
}

Result<RunReport> Rebuild(lake::Lake& lake, lake::Run& run, const UpdateOptions& options) {
  const std::string command = options.command.empty() ? "etl rebuild" : options.command;
  return AsRun(
      lake, run, command,
      [&](RunReport& report) { return BuildBody(lake, run, Job::kRebuild, options, report); },
      options.in_parts);
}

Result<RunReport> Drop(lake::Lake& lake, lake::Run& run, int64_t from_ms,
                       const RunOptions& options) {
  return AsRun(lake, run, "etl drop", [&](RunReport& report) -> Status {
    ASSIGN_OR_RETURN(auto pipeline, StageRollback(lake, from_ms, options, report));
    if (!pipeline) return FinishNoop(lake, run, report);
    report.message = report.command + ": " + report.message;
    double waiting_ms = 0;
    {
      ASSIGN_OR_RETURN(auto tx, duck::Transaction::Begin(lake.conn()));
      RETURN_IF_ERROR(PublishRollback(lake, *pipeline, report, waiting_ms));
      RecordOn(run, report);
      RETURN_IF_ERROR(run.Finish());
      RETURN_IF_ERROR(pipeline->CheckFault("commit"));
      RETURN_IF_ERROR(tx.Commit());
    }
    report.step_ms = pipeline->timings();
    report.step_ms.emplace_back("waiting", waiting_ms);
    if (pipeline->CheckFault("drop_staging").ok()) (void)pipeline->DropStaging();
    return Status::Ok();
  });
}

Result<RunReport> RawDrop(lake::Lake& lake, lake::Run& run, int64_t from_ms,
                          const RunOptions& options) {
  return AsRun(lake, run, "raw drop", [&](RunReport& report) -> Status {
    ASSIGN_OR_RETURN(auto pipeline, StageRollback(lake, from_ms, options, report));
    std::string etl_message = pipeline ? report.message : "";
    Pipeline faults(lake, Job::kRollback, {}, options, report.command);
    {
      ASSIGN_OR_RETURN(auto tx, duck::Transaction::Begin(lake.conn()));
      double waiting_ms = 0;
      if (pipeline) RETURN_IF_ERROR(PublishRollback(lake, *pipeline, report, waiting_ms));
      RETURN_IF_ERROR(faults.CheckFault("delete_raw"));
      ASSIGN_OR_RETURN(auto deleted, lake.DeleteRawFrom(from_ms));
      int64_t total = 0, restored = 0;
      for (const auto& [table, counts] : deleted) {
        report.tables[table].rows_deleted += counts.rows_deleted;
        report.tables[table].rows_updated += counts.rows_updated;
        total += counts.rows_deleted;
        restored += counts.rows_updated;
      }
      report.changed = true;
      report.window_start_ms = from_ms;
      if (!pipeline) report.window_end_ms.reset();
      report.message =
          "raw drop: deleted " + std::to_string(total) + " raw rows from " + FormatTime(from_ms) +
          (restored == 0 ? ""
                         : "; restored the earlier version of " + std::to_string(restored) +
                               " re-submitted prediction(s)") +
          (etl_message.empty() ? "" : "; built tables rolled back (" + etl_message + ")");
      RecordOn(run, report);
      RETURN_IF_ERROR(run.Finish());
      RETURN_IF_ERROR(faults.CheckFault("commit"));
      RETURN_IF_ERROR(tx.Commit());
    }
    if (pipeline) report.step_ms = pipeline->timings();
    if (pipeline && faults.CheckFault("drop_staging").ok()) (void)pipeline->DropStaging();
    return Status::Ok();
  });
}

}  // namespace predlake::etl
