// `validate`: named data-quality checks over a lake, each with its count and a few example rows.
// Every check is SQL over the lake (nothing is loaded whole; the checks that join or group the
// whole lake read it one slot range at a time, lake::kPassRangeSlots), and every check can fire:
// tests/ops corrupts lakes on purpose to prove it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "common/status.hpp"
#include "common/table_format.hpp"
#include "lake/lake.hpp"

namespace predlake::ops {

enum class CheckStatus {
  kPass,     // nothing found
  kFail,     // the lake breaks an invariant
  kInfo,     // an informational check: what it counts is worth knowing but never a fault
  kSkipped,  // cannot be checked on this lake (e.g. no built tables yet); `note` says why
};

// "pass", "FAIL", "info", "skipped".
std::string_view CheckStatusName(CheckStatus status);

struct CheckResult {
  std::string name;         // stable identifier, e.g. "raw_rows_outside_watermark"
  std::string description;  // one line: what a finding means
  CheckStatus status = CheckStatus::kPass;
  int64_t count = 0;   // findings (rows, IDs, gaps, tables: see each check's description)
  std::string note;    // extra facts, or why it was skipped
  ResultSet examples;  // up to ValidateOptions::max_examples findings
};

struct ValidationReport {
  std::vector<CheckResult> checks;
  // The time of each step of the run, in order (a step is one or more checks, named after its
  // first; `setup` is the tables, the checkpoint and the mark's range): what `-v` prints.
  struct StepTime {
    std::string name;
    double wall_ms = 0;
    double cpu_ms = 0;  // the process's, every thread
  };
  std::vector<StepTime> steps;
  // Names of the failed checks, in order.
  std::vector<std::string> Failed() const;
};

// Where an incremental validate starts from: the lake as the last clean `validate --incremental`
// saw it (kept in predlake_meta under kMetaValidateMark).
struct ValidateMark {
  int64_t run_id = 0;  // the newest run in the ledger then
  std::optional<int64_t> checkpoint_ms;
  std::map<std::string, int64_t> watermarks;  // raw table -> watermark then
  std::string ToJson() const;
  // nullopt for text that is not a mark (a hand-edited or foreign value).
  static std::optional<ValidateMark> FromJson(const std::string& text);
};
inline constexpr std::string_view kMetaValidateMark = "validate_mark";

// The ledger's command text of `validate --incremental`, the writer that records the mark (one run
// each, docs/runs.md). Its runs change no data: raw_tables_never_fetched looks past them.
inline constexpr std::string_view kValidateIncrementalCommand = "validate --incremental";

// What `validate` lets DuckDB use before it spills to disk, so that its peak memory does not grow
// with the lake (docs/scale.md).
inline constexpr std::string_view kValidateMemoryLimit = "512MB";

// The lake's mark as it is now (read-only).
Result<ValidateMark> CurrentMark(lake::Lake& lake);

struct ValidateOptions {
  int max_examples = 5;
  // Set: check only what the lake's writers changed since that mark (docs/operations.md,
  // "validate --incremental"): raw rows from the lowest watermark any run since left (raw drops
  // and imports included), built rows written by runs since, the processed window from the lowest
  // checkpoint since. Whole-lake checks that have no such bound are skipped and say so.
  std::optional<ValidateMark> since;
  // A waiting update event counts as stale when the row it waits for should have been built this
  // long ago (its event time is older than checkpoint - stale_after_ms).
  int64_t stale_after_ms = 24LL * 3600 * 1000;
  // The width of the slot ranges the full checks read one at a time (lake::kPassRangeSlots; tests
  // narrow it to cross ranges in a small lake); 0 or less: the whole lake at once.
  int64_t range_slots = lake::kPassRangeSlots;
  // DuckDB's memory limit for the checks (the lake's connection keeps it afterwards); empty: leave
  // it. The command line sets kValidateMemoryLimit.
  std::string memory_limit;
};

// The checks, in report order:
//   duplicate_ids                            IDs stored more than once, in any table with an ID
//   raw_rows_outside_watermark               raw rows after their table's watermark, before its
//                                            start, or in a table that has no watermark
//   raw_rows_at_watermark                    (info) raw rows exactly at their watermark, as a fetch
//                                            interrupted inside a run of equal timestamps leaves
//   built_rows_past_checkpoint               built rows whose event (or last folded event) time is
//                                            at/after the checkpoint or before its start
//   checkpoint_past_frontier                 the checkpoint is ahead of the lowest raw watermark
//   slot_gaps                                slots a stored prediction refers to, missing from
//                                            pdr_slots inside its covered window: a gap in what
//                                            the source has, never in the calendar
//   epochs_without_slot                      (info) per feed, epochs between consecutive slots
//                                            with no slot entity (nobody predicted, no trueval),
//                                            measured with the feed's own epoch length
//   payouts_without_prediction               payouts whose prediction falls inside the predictions'
//                                            covered window but is not there
//   payouts_without_prediction_outside_window  (info) payouts whose prediction was made before the
//                                            predictions' start or after their watermark
//   bronze_payout_fields_null                bronze predictions with a payout but NULL predvalue or
//                                            truevalue (canceled slots excepted)
//   bronze_raw_parity                        predictions in [start, checkpoint) present in raw but
//                                            not in bronze, or the reverse
//   stale_waiting_updates                    update events waiting for a row that should exist
//   waiting_updates_maintained               the waiting updates the publishes maintain (what
//                                            describe shows) differ from their count from raw
//   orphan_staging_tables                    staging tables left by a run that died
//   trueval_vs_exchange                      slots whose on-chain trueval disagrees with the
//                                            exchange's candles (docs/ohlcv.md)
// Built-table checks are kSkipped while bronze_pdr_predictions does not exist. Errors (a query
// failing) are kData; a failing check is not an error.
Result<ValidationReport> Validate(lake::Lake& lake, const ValidateOptions& options = {});

// Text for people: one line per check, then the examples of every check with findings, then a
// summary line. Tables fit `width` when it is > 0.
void WriteValidationText(std::ostream& out, const ValidationReport& report, int width);

// One JSON document: {"ok": bool, "failed": [names], "checks": [{name, status, count, description,
// note, examples: [{column: value}]}]}, then a newline.
void WriteValidationJson(std::ostream& out, const ValidationReport& report);

// "name=wall/cpu ..." (milliseconds) of report.steps, for the verbose log.
std::string DescribeStepTimes(const ValidationReport& report);

}  // namespace predlake::ops
