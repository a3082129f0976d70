// The lake: one DuckDB file inside lake_dir, its schema (raw, built and bookkeeping tables), the
// writer lock, the raw watermarks, the ETL checkpoint and the run ledger. See docs/lake.md for the
// layout and docs/runs.md for the run state machine.
//
// Thread safety: a Lake is used by one thread; other threads may open their own connections through
// db().
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.hpp"
#include "common/time.hpp"
#include "duck/duck.hpp"
#include "lake/tables.hpp"

namespace predlake::lake {

// Bumped whenever the layout changes; a lake written by a newer schema is refused.
inline constexpr int kSchemaVersion = 1;

// The raw tables (kRawTables, in the order they are fetched and reported) and every other table
// name are defined in lake/tables.hpp.

// The file name of the database inside lake_dir (the only spelling of "lake.duckdb"), and of the
// writer's lock file beside it.
inline constexpr std::string_view kDatabaseFile = "lake.duckdb";
inline constexpr std::string_view kLockFile = "lake.lock";

enum class Mode { kRead, kWrite };

struct OpenOptions {
  Mode mode = Mode::kRead;
  std::string command;  // recorded in the lock file so that a second writer can name the holder
  const Clock* clock = nullptr;  // for ledger times; nullptr = the system clock
  int threads = 0;               // DuckDB worker threads; 0 = default
};

// Per table counts of one run.
struct TableCounts {
  int64_t rows_in = 0;
  int64_t rows_out = 0;
  int64_t rows_updated = 0;
  int64_t rows_deleted = 0;
};

// What a finished run records in the ledger beside its status.
struct RunSummary {
  std::optional<int64_t> window_start_ms;
  std::optional<int64_t> window_end_ms;
  std::map<std::string, TableCounts> tables;
  std::string detail_json;  // command-specific facts as a JSON object, or ""
};

struct Watermark {
  int64_t start_ms = 0;
  int64_t watermark_ms = 0;
};

struct Checkpoint {
  int64_t start_ms = 0;
  int64_t checkpoint_ms = 0;
};

class Lake {
 public:
  // Opens <lake_dir>/lake.duckdb. kWrite creates lake_dir and the database when missing, takes the
  // writer lock (a second writer gets kBusy naming the holder's pid, command and start time),
  // creates missing tables, and marks runs a killed process left "running" as "aborted". kRead
  // never creates anything: a missing lake is kData "no lake at DIR"; a lake held by a writer is
  // kBusy naming the writer. A file that is not a predlake lake, or a lake written by a newer
  // schema, is refused (kData) without being changed.
  static Result<std::unique_ptr<Lake>> Open(const std::string& lake_dir,
                                            const OpenOptions& options);

  // An in-memory lake with the full schema and no rows, standing in for a lake that does not exist
  // yet (describe shows what a new lake holds). Read-only in spirit: nothing is ever written to
  // disk.
  static Result<std::unique_ptr<Lake>> OpenEmpty(const std::string& lake_dir, const Clock* clock);

  ~Lake();
  Lake(const Lake&) = delete;
  Lake& operator=(const Lake&) = delete;

  duck::Database& db() { return *db_; }
  duck::Connection& conn() { return *conn_; }
  const std::string& dir() const { return dir_; }
  Mode mode() const { return mode_; }
  int64_t NowMs() const { return clock_->NowMs(); }

  // ---- Watermarks (rule 1). Readers see committed state; writers call the setters inside the
  // transaction that stores the rows the watermark covers.
  Result<std::map<std::string, Watermark>> Watermarks();
  Result<std::optional<Watermark>> GetWatermark(std::string_view table);
  Status SetWatermark(std::string_view table, const Watermark& watermark, int64_t run_id);

  // ---- The ETL checkpoint (rule 3). nullopt before the first ETL run.
  Result<std::optional<Checkpoint>> GetCheckpoint();
  Status SetCheckpoint(const Checkpoint& checkpoint, int64_t run_id);
  Status ClearCheckpoint();

  // ---- The run ledger. BeginRun commits a "running" row at once (so a kill leaves a trace) and
  // records the watermarks and checkpoint before the run. FinishRun marks it succeeded; call it
  // inside the transaction that publishes the run's work so that both commit together. FailRun
  // marks it failed in its own transaction (call it after rolling the work back); a kCancelled
  // status is recorded as "aborted".
  Result<int64_t> BeginRun(const std::string& command);
  Status FinishRun(int64_t run_id, const RunSummary& summary);
  Status FailRun(int64_t run_id, const Status& error, const RunSummary& summary = {});

  // Deletes raw rows with timestamp >= from_ms and moves those tables' watermarks back to from_ms
  // (never below their start). Does not open a transaction: the caller wraps it with whatever else
  // must commit together (the checkpoint pull-back). Returns rows deleted per table.
  Result<std::map<std::string, TableCounts>> DeleteRawFrom(int64_t from_ms);

 private:
  Lake() = default;
  Status EnsureSchema();
  Status ReconcileAbandonedRuns();
  Result<std::string> WatermarksJson();

  std::string dir_;
  Mode mode_ = Mode::kRead;
  std::unique_ptr<duck::Database> db_;
  std::unique_ptr<duck::Connection> conn_;
  std::unique_ptr<Clock> owned_clock_;
  const Clock* clock_ = nullptr;
  int lock_fd_ = -1;
};

// Reads the lock file of lake_dir and describes the writer holding it ("pid 123, `raw update`,
// since 2024-07-26T01:00:00Z"), or "" when no live writer is recorded.
std::string DescribeLockHolder(const std::string& lake_dir);

}  // namespace predlake::lake
