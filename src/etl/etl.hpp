// The incremental ETL (docs/etl.md): builds bronze_pdr_predictions, bronze_pdr_slots and the gold
// tables from the raw tables over the window [checkpoint, frontier), in staging tables, and
// publishes them in one transaction together with the new checkpoint and the run's success.
//
// Every job here takes a Lake opened for writing and a run begun on it (lake::Lake::BeginRun; for
// `update` the run its raw fetch began). The job adds its window, the built tables' counts and its
// detail {start_ms, changed, message} to the run, finishes the run inside the publish transaction,
// and on failure fails the run (lake::Run::Fail) and returns its non-OK Status with the live
// tables, checkpoint and watermarks exactly as they were. ComputeFrontier and Waiting also work on
// a read-only lake. Not thread-safe: one call at a time per Lake.
//
// Testing aid: RunOptions::faults makes a run fail (kInternal) or raise SIGKILL when it reaches a
// step (StepNames() lists them; "commit" is inside the publish transaction just before it commits,
// "drop_staging" is after it; `raw drop` also has "delete_raw", inside its transaction). Nothing
// here reads the environment: the caller passes FaultInjection::FromEnv() where wanted.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/progress.hpp"
#include "common/status.hpp"
#include "lake/lake.hpp"

namespace predlake::etl {

// The raw tables the ETL reads; the frontier is the lowest of their watermarks. pdr_slots is not
// read (a latest-state snapshot carries no event time) and pdr_contracts is a snapshot without a
// watermark.
inline constexpr std::string_view kInputTables[] = {
    lake::kPredictionsTable.name, lake::kTruevalsTable.name, lake::kPayoutsTable.name,
    lake::kSubscriptionsTable.name};

// The built tables, in publish order (defined in lake/tables.hpp beside their DDL's tests).
inline constexpr const auto& kBuiltTables = lake::kBuiltTables;

// The trueval submit timeout assumed for a contract the pdr_contracts snapshot does not list (e.g.
// after importing pdr-backend files): 3 days, the value pdr-backend deploys feeds with.
inline constexpr int64_t kDefaultTruevalSubmitTimeoutS = 3 * 86'400;

// Deterministic failure injection for tests. Empty fields inject nothing.
struct FaultInjection {
  std::string fail_at;  // the run fails with kInternal when it reaches this step
  std::string kill_at;  // the process raises SIGKILL when it reaches this step
  // The run waits at this step until the process is interrupted (duck::InterruptAll, i.e. a
  // signal), then fails kCancelled: so that a test can signal a job at a known step.
  std::string stall_at;
  // PREDLAKE_FAIL_AT / PREDLAKE_KILL_AT / PREDLAKE_STALL_AT from the environment (read by the
  // command edge, once).
  static FaultInjection FromEnv();
};

// The stall of FaultInjection::stall_at at `step` of `stage` ("raw", "etl"): writes one line,
// "predlake: <stage> step <step> stalls until a signal (PREDLAKE_STALL_AT)", on stderr, so that a
// test can wait for the step instead of sleeping; then waits until the process is interrupted and
// returns kCancelled naming the step. Blocks the calling thread.
[[nodiscard]] Status StallUntilInterrupted(std::string_view stage, std::string_view step);

struct RunOptions {
  Progress* progress = nullptr;  // per-step progress; not owned, may be null
  FaultInjection faults;         // none by default
  // lake_ss.ohlcv: the candle columns are built and the frontier includes the candle watermarks.
  bool ohlcv = true;
};

struct UpdateOptions : RunOptions {
  // The requested end of the window; the run stops at min(frontier, to_ms). nullopt: the frontier.
  std::optional<int64_t> to_ms;
  // lake_ss.st_timestr resolved: the first run starts at max(this, the latest raw start_ms of the
  // input tables). Ignored once a checkpoint exists (its recorded start is kept).
  std::optional<int64_t> st_ms;
  // false: a successful incremental run leaves its staging tables (all TEMP) to the connection's
  // close, or to the next run, which drops whatever staging tables it finds first (`update`, which
  // closes the lake or runs its next chunk next; dropping them one by one cost it about 2.5 ms).
  // A rebuild drops its own whatever this says: it stages bronze rows in the lake.
  bool drop_staging_after = true;
  // The command the report and its message name; empty: the job's own ("etl update" for Update).
  std::string command;
  // A rebuild in parts (a chunked `etl rebuild`, and a chunked `etl update` that builds from the
  // start: no checkpoint yet, or the start moved earlier): each run stages one pass of part_ms
  // (0, or more than 7 days: the rebuild's own 7-day passes) of the rebuild of the whole window, as
  // of its end, and commits
  // it into the lake's staged tables with its position (predlake_meta kMetaRebuildParts); the run
  // that stages the last pass publishes them all (RunReport::more false). A part resumes after the
  // last committed one when the same command asked for the same window and no other command ran
  // since; otherwise it starts over. An Update whose window does not start at the start (a
  // checkpoint is there) is kInternal with it: the caller decides from the checkpoint.
  bool in_parts = false;
  int64_t part_ms = 0;
};

// predlake_meta key: the position of a rebuild in parts, JSON {"command", "start_ms", "end_ms",
// "ohlcv", "position_ms", "run_id"} (the run that committed the part); deleted by its publish.
inline constexpr std::string_view kMetaRebuildParts = "etl_rebuild_parts";

// Where the raw tables the ETL reads allow it to go.
struct Frontier {
  std::optional<int64_t> frontier_ms;  // min of the input watermarks; nullopt if one is missing
  std::string held_by;                 // the input table with the lowest watermark
  std::vector<std::string> missing;    // input tables without a watermark, in kInputTables order
  int64_t latest_start_ms = 0;         // max of the input tables' start_ms
};

// What a run did. `message` is one human-readable line summarising it.
struct RunReport {
  int64_t run_id = 0;
  std::string command;   // "etl update", "etl rebuild", "etl drop", "raw drop"
  bool changed = false;  // false: nothing to do (see message)
  std::optional<int64_t> checkpoint_before_ms;
  std::optional<int64_t> checkpoint_after_ms;
  std::optional<int64_t> start_ms;  // the checkpoint's start (S)
  std::optional<int64_t> window_start_ms;
  std::optional<int64_t> window_end_ms;
  lake::TableCountsMap tables;
  std::string message;
  // Wall-clock milliseconds per pipeline step of this run, in order (for diagnosis and benchmarks).
  std::vector<std::pair<std::string, double>> step_ms;
  // A rebuild in parts (UpdateOptions::in_parts): this run committed a part and published nothing;
  // the next part continues. part_index counts from 1; part_count is the window's passes.
  bool more = false;
  int64_t part_index = 0, part_count = 0;
};

// step_ms as one line, "step=1.2 other=30.0" (milliseconds), for -v (docs/scale.md).
std::string DescribeStepTimes(const RunReport& report);

// Update events that wait for a row that is not built (yet): e.g. payouts of predictions made
// before the lake's start. They stay in raw and are applied if the row is ever built.
struct WaitingEvents {
  std::string table;  // "pdr_payouts" or "pdr_truevals"
  int64_t events = 0;
  std::optional<int64_t> oldest_ms;
};

// `etl update`: processes [checkpoint, min(frontier, to_ms)). The first run starts at the start
// described in UpdateOptions::st_ms. A window that is empty (checkpoint at or past the frontier) is
// not an error: the run is recorded and the report says why nothing changed. A missing input
// watermark is a kData error naming the tables.
Result<RunReport> Update(lake::Lake& lake, lake::Run& run, const UpdateOptions& options);

// `etl rebuild`: every built table from raw in one run and one publish, from the recorded start
// (or the first-run start) to min(frontier, to_ms). No refetch.
Result<RunReport> Rebuild(lake::Lake& lake, lake::Run& run, const UpdateOptions& options);

// `etl drop --from T`: deletes built rows with timestamp >= T, recomputes the older rows that
// events at or after T changed, recomputes the affected gold groups and sets the checkpoint to T,
// in one transaction. T at or after the checkpoint changes nothing (reported in the message); T at
// or before the start empties the built tables and clears the checkpoint (the next update starts
// afresh).
Result<RunReport> Drop(lake::Lake& lake, lake::Run& run, int64_t from_ms,
                       const RunOptions& options);

// `raw drop --from T`: in one transaction, the same rollback as Drop when the checkpoint is past T,
// then Lake::DeleteRawFrom(T).
Result<RunReport> RawDrop(lake::Lake& lake, lake::Run& run, int64_t from_ms,
                          const RunOptions& options);

// The frontier of the input tables (read-only). The candle streams are not inputs of the frontier:
// candles are late data for a slot, folded in when they arrive (docs/ohlcv.md), so an exchange
// that fails never holds the built tables back.
Result<Frontier> ComputeFrontier(lake::Lake& lake);

// The candle writes the ETL has not folded yet (rows of lake::kCandleChangesTable). Read-only.
Result<int64_t> PendingCandleChanges(lake::Lake& lake);

// predlake_meta key: "on" or "off", whether the built tables were last published with the candle
// columns (RunOptions::ohlcv). An update whose setting differs rebuilds; a rollback refuses.
inline constexpr std::string_view kMetaBuiltWithOhlcv = "etl_ohlcv";

// Update events waiting for their target row, one entry per table (events = 0 when none). Empty
// before the first ETL run. Read-only. Counted from predlake_waiting, which every publish keeps
// exact, when it is current for the checkpoint (cost: the size of the set); otherwise, as
// WaitingFromRaw (a lake whose checkpoint was last moved by an older predlake).
Result<std::vector<WaitingEvents>> Waiting(lake::Lake& lake);

// The same from raw and the built tables, ignoring predlake_waiting: its cost follows the size of
// the lake (validate compares the two; the property tests assert they agree).
Result<std::vector<WaitingEvents>> WaitingFromRaw(lake::Lake& lake);

// WaitingFromRaw's count of the events whose slot is in [lo, hi] (lo > hi: those whose slot is
// NULL), looking for their rows in the same slots: summed over ranges that cover every slot, it is
// WaitingFromRaw (validate reads only the ranges its certificates cannot vouch for). Both tables
// listed, with 0 events when none. Read-only.
Result<std::vector<WaitingEvents>> WaitingFromRawInSlots(lake::Lake& lake, int64_t lo, int64_t hi);

// True when the maintained set (predlake_waiting) is current for the checkpoint as it is now: the
// last publish maintained it. False without a checkpoint.
Result<bool> WaitingIsCurrent(lake::Lake& lake);

// Every step name, in pipeline order (for PREDLAKE_FAIL_AT / PREDLAKE_KILL_AT).
std::vector<std::string> StepNames();

}  // namespace predlake::etl
