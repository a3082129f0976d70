// Internal to the ETL module: the table of steps (one place, pipeline order), the substitution of
// parameters into the steps' SQL, and the runner that executes the steps of one job.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.hpp"
#include "etl/etl.hpp"
#include "lake/lake.hpp"

namespace predlake::etl {

// The jobs that share the pipeline. kUpdate folds the window's events into live rows and computes
// the new ones; kRebuild computes every row from the start as if nothing were live; kRollback
// recomputes the live rows that events at or after the cut changed.
enum class Job { kUpdate, kRebuild, kRollback };

// Integer parameters of the SQL steps, by name (${NAME} in the SQL text). The job sets S (start),
// C (window start), F (as-of: the window end, or the rollback target), CUT (live rows at or after
// it are replaced or deleted), RUN (run id), ALL_GROUPS (1 in a rebuild: every gold group is
// replaced) and DEFAULT_TIMEOUT_S; kParams steps add their columns.
using Params = std::map<std::string, int64_t, std::less<>>;

// Replaces every ${NAME} in `sql` by params[NAME] as a typed literal, `(123::BIGINT)`. Only
// integers are ever substituted, so no quoting is involved. An unknown or malformed placeholder is
// kInternal naming the step.
Result<std::string> RenderSql(std::string_view sql, const Params& params, std::string_view step);

// The names of the steps `job` runs, in order, including the builtin ones ("cleanup", "commit",
// "drop_staging").
std::vector<std::string> JobStepNames(Job job);

// The SQL text of an embedded step file; kInternal when there is none.
Result<std::string_view> StepSql(std::string_view stem);

// StepSql(stem) rendered with `params` (RenderSql).
Result<std::string> RenderStep(std::string_view stem, const Params& params);

// Runs one job's steps on the lake's connection. Usage: Stage(), then, inside the caller's
// transaction, Publish() and CheckFault("commit") before committing; then DropStaging(). Every
// step first honours the fault injection of RunOptions.
class Pipeline {
 public:
  // The length of a pass (see Passes), in ms, unless a rebuild in parts asks for shorter ones.
  static constexpr int64_t kPassMs = 7 * 86'400'000LL;

  Pipeline(lake::Lake& lake, Job job, Params params, RunOptions options, std::string command);

  // Drops orphan staging tables, then builds every staging table and view up to the publish, in
  // one transaction of its own (a failure or kill leaves no staging behind). Fills counts() with
  // the ledger counts.
  Status Stage();
  // A part of a rebuild in parts (UpdateOptions::in_parts): one pass of length pass_ms, the first
  // whose start is at or after after_ms (all of them from the first when after_ms is nullopt).
  struct Part {
    // The end of the last pass an earlier part committed; nullopt for the first part, which also
    // runs the steps that fill the lake's staged tables before the passes (compute_slots ...).
    std::optional<int64_t> after_ms;
    int64_t pass_ms = kPassMs;
  };
  struct PartStaged {
    int64_t pass_from = 0, pass_to = 0;     // the pass staged (empty when none was left)
    size_t pass_index = 0, pass_count = 0;  // its index (from 0) among the window's passes
    bool last = false;  // the last pass: the steps after the passes ran too (gold, summary)
  };
  // Stages one part of a rebuild, inside the caller's transaction (none of its own): the steps
  // before the passes (those that fill the lake's staged tables only in the first part), one pass,
  // and when it is the last (or none is left) the steps after the passes. The caller commits the
  // part with its position (pass_to), so that a later part resumes after it; the last part is
  // then published like Stage()'s.
  Result<PartStaged> StagePart(const Part& part);
  // Applies the staged rows to the live tables. Call inside the publish transaction.
  Status Publish();
  // Drops this run's staging tables (and any other orphan). Safe to call after a failure.
  // keep_parts: keeps the lake's staged bronze tables (a rebuild in parts resumes from them).
  Status DropStaging(bool keep_parts = false);
  // Honours the fault injection for a step the caller runs itself.
  Status CheckFault(std::string_view step);

  const lake::TableCountsMap& counts() const { return counts_; }
  const Params& params() const { return params_; }
  // Milliseconds per step run so far, in order.
  const std::vector<std::pair<std::string, double>>& timings() const { return timings_; }

 private:
  // The timestamp ranges [PA, PB) that the per-pass steps (compute_predictions and its range) run
  // over, one after the other: for an update or a rebuild, [max(S, C), F) in parts of pass_ms, in
  // order, so that the rows are staged in timestamp order and one statement never holds more than
  // a pass's predictions (a whole 10M-prediction history did not fit the default memory limit);
  // for a rollback, one pass over every timestamp. A window longer than one pass is first cut to
  // the span of its predictions (range_prediction_passes.sql).
  Result<std::vector<std::pair<int64_t, int64_t>>> Passes(int64_t pass_ms);
  // Stage() and StagePart(): part null for the whole window in one transaction of its own.
  Status StageSteps(const Part* part, PartStaged* staged);
  Status RunStep(std::string_view name, int index, int total);
  Status RunStepBody(std::string_view name, int index, int total);
  Status RunParams(std::string_view name, const std::string& sql);
  Status RunSummary(const std::string& sql);

  lake::Lake& lake_;
  Job job_;
  Params params_;
  RunOptions options_;
  std::string command_;
  lake::TableCountsMap counts_;
  std::vector<std::pair<std::string, double>> timings_;
  // The width, in slots, of the ranges a slot-ranged step runs in (kSteps): a pass's length, so
  // that a rebuild in short parts (tests) runs them in many ranges too.
  int64_t slot_range_ = kPassMs / 1000;
};

}  // namespace predlake::etl
