// `predlake export`: an atomic, incremental Parquet snapshot of the lake (layout in snapshot.hpp,
// docs/export.md).
//
// An export reads the lake it is given (the caller holds it as writer, so nothing changes under
// it), writes the new snapshot into exports/.tmp-run-N/, fsyncs every file and folder, renames the
// folder to exports/run-N/ and switches `current` to it with one rename(2) of a temporary symlink.
// Until that rename the previous snapshot stays current; a failure or a kill before it leaves only
// the temporary folder, which the next export removes.
//
// Incremental (the default): a day of a table is rewritten only when its rows may have changed
// since the previous snapshot, and hard-linked from it otherwise.
//   - built tables: every ETL write (insert, fold, recompute, rebuild) stamps run_id with its run,
//     and run ids only grow, so the changed days are those holding a row with run_id above the
//     previous export's run (found through DuckDB's zone maps on run_id, without reading older
//     row groups), plus the days that lost rows. A day without newer rows can only have lost
//     rows, so the export checks that the previous counts of the other days plus the counts of
//     the changed ones add up to the table's row count; when they do not (a rollback, a rebuild,
//     a vanished group) it falls back to the per-day signature below for that table: row count
//     and max(run_id), one scan of the table.
// The append-only raw tables (pdr_truevals, pdr_payouts, pdr_subscriptions) without a delete since
// the previous snapshot: a day's rows only grow, so the days outside what the previous manifest's
// watermark covered (its day and after, the start's day and before) are counted and the others
// keep their previous counts, checked the same way against count(*); a late row inside the old
// coverage makes the table fall back to its signature.
// pdr_predictions and pdr_slots (changed in place: re-submissions, raw drop's restores, upserts):
// every write of them records the days it touches in lake::kRawDaysTable with a number above all
// earlier ones (lake::RecordWrittenDaysSql); the days recorded above the number the previous
// manifest kept (`raw_days_seq`), plus those outside the previous coverage, are counted and
// signed, checked the same way against count(*) (a row that left a day nothing recorded), with
// the fallback to the per-day signature; a previous snapshot without the number (an older build's)
// falls back too.
// The per-day signatures, computed in DuckDB and compared with the ones the previous manifest
// recorded:
//   - pdr_slots: row count and a hash of every column of every row;
//   - pdr_predictions: row count and the sum of its timestamps (a row changes only with its
//     timestamp), and the whole table after a raw drop when the previous snapshot has no
//     `raw_days_seq`;
//   - the other raw tables (append-only, a row never changes once stored; pdr_ohlcv, whose
//     watermarks are per stream, and the append-only ones on a fallback): row count, and the
//     whole table after a raw drop recorded in the ledger since the previous snapshot;
//   - pdr_contracts and the bookkeeping tables (small): always rewritten.
// The newest two days of a table partitioned by the day of `timestamp` are held as one file set
// per UTC hour: in such a day that changed, only the hours whose rows or per-hour signature (the
// table's, as above) differ from the previous manifest's are rewritten, the others linked; a day
// that has left the newest two is written as one file set again when it next changes.
// `full` rewrites every day.
//
// Thread safety: uses the lake's connection; the Lake's thread only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/progress.hpp"
#include "common/status.hpp"
#include "export/snapshot.hpp"
#include "lake/lake.hpp"

namespace predlake::exports {

struct ExportFaults {
  // A step name ("copy", "fsync", "manifest", "rename", "switch"): the export fails with kInternal
  // (fail_at) or raises SIGKILL (kill_at) when it reaches it. Empty: none.
  std::string fail_at;
  std::string kill_at;
  // PREDLAKE_FAIL_AT / PREDLAKE_KILL_AT of the form "export:STEP" (read by the command edge, once;
  // other values belong to the ETL and are ignored here).
  static ExportFaults FromEnv();
};

struct ExportOptions {
  bool full = false;               // rewrite every day, link nothing
  int64_t grace_ms = 10 * 60'000;  // lake_ss.export_grace: how long a superseded snapshot stays
  Progress* progress = nullptr;    // not owned; may be null
  ExportFaults faults;
};

struct ExportReport {
  int64_t run_id = 0;
  std::string dir;  // the new snapshot's folder
  int64_t tables = 0;
  int64_t days_written = 0;
  int64_t days_linked = 0;
  int64_t rows_written = 0;
  int64_t rows_linked = 0;
  // Of the newest days, held in hours (snapshot.hpp): the hours written and linked.
  int64_t hours_written = 0;
  int64_t hours_linked = 0;
  int64_t snapshots_removed = 0;  // superseded snapshots past their grace period (see below)
  // Wall seconds by phase (the benchmark's breakdown): the per-day signatures, the Parquet writes
  // (partitioned and whole tables) and the fsyncs of the new snapshot.
  double signature_s = 0;
  double write_s = 0;
  double sync_s = 0;
  double link_s = 0;   // hard links of the unchanged days
  double clean_s = 0;  // dead exports' leftovers and superseded snapshots removed
  // CPU seconds of the process (every thread) in the same phases.
  double signature_cpu_s = 0;
  double write_cpu_s = 0;
  double sync_cpu_s = 0;
  double link_cpu_s = 0;
  double clean_cpu_s = 0;
  // Tables whose changed days were derived (built tables from run_id, append-only raw tables from
  // the coverage, pdr_predictions and pdr_slots from the recorded days), and those (of them) whose
  // day counts did not add up, which fell back to the per-day signature.
  int64_t tables_derived = 0;
  int64_t signature_fallbacks = 0;
  std::vector<std::string> derived_tables;  // the tables whose changed days were derived
  std::string message;                      // one line for the log
};

// Writes the snapshot of `lake` for `run` (begun by the caller as "export"), and finishes the run
// (succeeded, with per-table counts: rows_out = rows written, rows_in = rows linked; detail: the
// folder and day counts). Then removes leftovers of dead exports and the snapshots that stopped
// being current more than options.grace_ms ago (never the current one), in the background after
// the run is committed (WaitForRemovals; the next Export and the process's exit wait for it).
// Errors (kData for DuckDB and file-system failures, naming the step and path; kInternal for an
// injected fault) are returned with the run not ended: the caller fails it. The lake's tables are
// never written.
Result<ExportReport> Export(lake::Lake& lake, lake::Run& run, const ExportOptions& options);

// Waits until the superseded snapshots the last Export began to remove are gone. Any thread.
void WaitForRemovals();

// The SQL expression of a row's day=YYYY-MM-DD partition (a DATE) for a partitioned table.
std::string DayExpression(Partitioning p);

}  // namespace predlake::exports
