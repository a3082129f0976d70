// The lake: one DuckDB file inside lake_dir, its schema (raw, built and bookkeeping tables), the
// writer lock, the raw watermarks, the ETL checkpoint and the run ledger. See docs/lake.md for the
// layout and docs/runs.md for the run state machine.
//
// Thread safety: a Lake is used by one thread; other threads may open their own connections through
// db().
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.hpp"
#include "common/time.hpp"
#include "duck/duck.hpp"
#include "lake/tables.hpp"

namespace predlake::lake {

// Bumped whenever the layout changes; a lake written by a newer schema is refused. 2: the tables
// that gain rows at every run lose their primary key (kUnkeyedTables); a writer's open rewrites a
// schema-1 lake's once.
inline constexpr int kSchemaVersion = 2;

// The tables without a primary key although a column names their rows (ID, run_id): those that
// gain rows at every run. In DuckDB (1.4, and 1.5 unless its experimental vacuum_rebuild_indexes is
// set) a table with an index never merges the row groups that
// appends leave at each checkpoint, so each such table grew the lake by about a 256 KB block per
// checkpoint, and every insert paid for the index (docs/scale.md). The writes keep the names
// unique instead (raw::InsertNewIdsSql; one writer numbers the runs). Every source table but the
// one keyed_by_timestamp, and the run ledger; tests/lake checks the DDL agrees.
inline constexpr auto kUnkeyedTables = [] {
  std::array<std::string_view, kSourceTableDefs.size()> out{};
  size_t n = 0;
  for (const TableDef* table : kSourceTableDefs) {
    if (!table->keyed_by_timestamp) out[n++] = table->name;
  }
  out[n++] = "predlake_runs";
  if (n != out.size()) throw "one source table is keyed_by_timestamp";  // a build error
  return out;
}();

// Keys of predlake_meta that describe where the lake's data comes from (docs/lake.md): the network
// recorded by the first writing command, and the subgraph deployment (its IPFS id,
// `_meta.deployment`) last fetched from, with the one before it and when it changed.
inline constexpr std::string_view kMetaNetwork = "network";
inline constexpr std::string_view kMetaDeployment = "deployment";
inline constexpr std::string_view kMetaPreviousDeployment = "previous_deployment";
inline constexpr std::string_view kMetaDeploymentChangedAtMs = "deployment_changed_at_ms";
// Set (to what changed) when an upgrade appended built columns (lake::kBuiltColumnsAdded) to tables
// that already had rows: until a rebuild publishes, the built tables are not what a rebuild would
// make, so `etl update` rebuilds them and rollbacks refuse. Deleted by a rebuild's publish.
inline constexpr std::string_view kMetaRebuildRequired = "etl_rebuild_required";
// The newest indexed head a fetch of this lake has read (block number and its time, unix ms): a
// later run never reads an older one (a load balancer in front of a lagging node, a rewound
// subgraph), so that no stored state is replaced by an older one (docs/raw.md).
inline constexpr std::string_view kMetaHeadBlock = "head_block";
inline constexpr std::string_view kMetaHeadMs = "head_ms";
// The time (unix ms) before which no request may reach the exchange (it asked so with a 418 or a
// 429 whose Retry-After the run could not wait out), and why; kept across runs so that the next
// run (from cron, minutes later) does not ask before it either (docs/ohlcv.md).
inline constexpr std::string_view kMetaExchangeBlockedUntil = "ohlcv_blocked_until_ms";
inline constexpr std::string_view kMetaExchangeBlockedWhy = "ohlcv_blocked_why";

// The raw tables (kRawTables, in the order they are fetched and reported) and every other table
// name are defined in lake/tables.hpp.

// The file name of the database inside lake_dir (the only spelling of "lake.duckdb"), and of the
// writer's lock file beside it.
inline constexpr std::string_view kDatabaseFile = "lake.duckdb";
inline constexpr std::string_view kLockFile = "lake.lock";
// The lock a loop (`update --every`) holds for its whole life, between runs too.
inline constexpr std::string_view kLoopLockFile = "loop.lock";

enum class Mode { kRead, kWrite };

// What a writer's close (Lake::Close) does with the write-ahead log (docs/lake.md, "The write-ahead
// log"). Durability is the same either way: every commit is in the WAL, fsynced, before it returns.
enum class CloseCheckpoint {
  kAlways,        // CHECKPOINT at close: the lake file alone holds every commit (DuckDB's default)
  kWhenWalLarge,  // only when the WAL has grown past kCloseCheckpointWalBytes (`update`): readers
                  // replay the rest when they open, the next checkpoint folds it in
};

// The WAL size from which a kWhenWalLarge close checkpoints (docs/scale.md: what replaying it costs
// a reader's open). DuckDB's own wal_autocheckpoint (16 MB) still checkpoints inside a commit.
inline constexpr int64_t kCloseCheckpointWalBytes = 4 << 20;

// The width, in slots (seconds), of the ranges in which a pass over the whole lake reads it, one
// range at a time, so that what it holds follows the range and not the length of the history: a
// week, about 2M predictions at mainnet's rate (the ETL's waiting events, `validate`'s full
// checks).
inline constexpr int64_t kPassRangeSlots = 7 * 86'400;

// The WAL size from which a close's checkpoint runs on DuckDB's default worker threads even when
// the lake was opened with fewer (OpenOptions::threads).
inline constexpr int64_t kParallelCheckpointWalBytes = 64 << 20;

// The file name of the write-ahead log beside kDatabaseFile.
inline constexpr std::string_view kWalFile = "lake.duckdb.wal";

struct OpenOptions {
  Mode mode = Mode::kRead;
  std::string command;  // recorded in the lock file so that a second writer can name the holder
  const Clock* clock = nullptr;  // for ledger times; nullptr = the system clock
  int threads = 0;  // DuckDB worker threads from the open on (duck::ThreadsSetting); 0 = default
  // DuckDB's memory_limit ("1GB"; lake_ss.memory_limit for writers); empty: DuckDB's default (80%
  // of the RAM). Past it DuckDB evicts cached blocks and spills to <lake_dir>/lake.duckdb.tmp/.
  std::string memory_limit{};
  // What the database may reach beyond its file (duck::Reach); kRead only for anything but kFull.
  duck::Reach reach = duck::Reach::kFull;
  // kWrite only: false refuses a missing lake (kData "no lake at DIR") instead of creating it, for
  // writers that only change what is there (etl update, etl rebuild, etl drop, raw drop).
  bool create = true;
  // kWrite only: how the writer's close treats DuckDB's checkpoint (the WAL folded into the file).
  CloseCheckpoint close_checkpoint = CloseCheckpoint::kAlways;
  // kWrite only: told, before it starts, of a long step the open takes (the one-time upgrade of a
  // schema-1 lake, which rewrites the raw tables). May be empty.
  std::function<void(const std::string&)> notice{};
};

// What one run did to one table: the one per-table count record of the code base (the ledger's
// predlake_run_tables row, what raw storing, import, the ETL and `runs` report).
struct TableCounts {
  int64_t rows_in = 0;       // rows read: records fetched, CSV rows read, input rows of a step
  int64_t rows_out = 0;      // rows stored new
  int64_t rows_updated = 0;  // stored rows whose values changed
  int64_t rows_deleted = 0;  // rows deleted
  TableCounts& operator+=(const TableCounts& other);
  bool operator==(const TableCounts&) const = default;
};

// Counts per table name, ordered by name.
using TableCountsMap = std::map<std::string, TableCounts>;

class Lake;

// One run in the ledger (docs/runs.md), begun by Lake::BeginRun, which has committed its "running"
// row. The writer doing the run's work fills in its window, per-table counts and detail, and ends
// it exactly once:
//   - Finish() inside the transaction that publishes the work, so that the success and the work
//     commit together (if that transaction then fails to commit, call Fail: it is still allowed);
//   - Fail(error) after rolling the work back, in a transaction of its own.
// Destroying a Run that was neither finished nor failed (an early return, an exception) records it
// as "aborted" with the error "the run ended without recording its outcome", best effort: should
// that write fail, the row stays "running" and the next writer to open the lake marks it
// "aborted", as after a kill.
//
// Move-only. Refers to its Lake, which must outlive it; used by the Lake's thread only.
class Run {
 public:
  Run(Run&& other) noexcept;
  Run& operator=(Run&& other) = delete;
  Run(const Run&) = delete;
  Run& operator=(const Run&) = delete;
  ~Run();

  int64_t id() const { return id_; }
  // The command recorded for the run ("raw update", "update", ...).
  const std::string& command() const { return command_; }

  // The window the run covered, recorded at the end (either bound may stay unset).
  void SetWindow(std::optional<int64_t> start_ms, std::optional<int64_t> end_ms);
  std::optional<int64_t> window_start_ms() const { return window_start_ms_; }
  std::optional<int64_t> window_end_ms() const { return window_end_ms_; }

  // Per-table counts, recorded at the end (one predlake_run_tables row each).
  TableCountsMap& tables() { return tables_; }
  const TableCountsMap& tables() const { return tables_; }

  // Command-specific facts, recorded at the end as a JSON object (NULL while empty).
  nlohmann::ordered_json& detail() { return detail_; }
  const nlohmann::ordered_json& detail() const { return detail_; }

  // Records "succeeded" with the watermarks and checkpoint as they are now. Call inside the
  // transaction that publishes the run's work. kInternal after Fail; kData on a DuckDB error.
  [[nodiscard]] Status Finish();

  // Records "failed" with error.message() ("aborted" when error is kCancelled) in a transaction of
  // its own, and returns the error to pass on: `error` itself, or, when recording fails, `error`
  // with " (and the failure could not be recorded: WHY)" appended (same code). After a first Fail,
  // later calls record nothing and return `error` unchanged. `error` must not be OK.
  [[nodiscard]] Status Fail(const Status& error);

  // True once Finish or Fail was called.
  bool ended() const { return state_ != State::kRunning; }

 private:
  friend class Lake;
  enum class State { kRunning, kFinished, kFailed };
  Run(Lake* lake, int64_t id, std::string command)
      : lake_(lake), id_(id), command_(std::move(command)) {}
  Status Record(std::string_view status, const std::string& error);

  Lake* lake_;
  int64_t id_;
  std::string command_;
  State state_ = State::kRunning;
  std::optional<int64_t> window_start_ms_;
  std::optional<int64_t> window_end_ms_;
  TableCountsMap tables_;
  nlohmann::ordered_json detail_ = nlohmann::ordered_json::object();
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
  // Opens <lake_dir>/lake.duckdb. A lake_dir that exists but is not a folder, that cannot be read
  // (kRead), or read and written (kWrite), or that cannot be created, is kConfig naming the folder
  // and the reason, before anything is created. kWrite creates lake_dir and the database when
  // missing (unless options.create is false: kData "no lake at DIR"), takes the
  // writer lock (a second writer gets kBusy naming the holder's pid, command and start time; a
  // writer kept out by a reader gets kBusy naming the processes that hold the file, never itself),
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

  // What a writer's Close did, for `-v` phase times.
  struct CloseReport {
    bool checkpointed = false;  // a CHECKPOINT ran
    int64_t wal_bytes = 0;      // the WAL's size before it (0: none)
  };

  // Closes the database: a writer first applies its OpenOptions::close_checkpoint (a failed
  // CHECKPOINT leaves the WAL for the next one: nothing committed is lost), then releases the
  // writer lock. The destructor does the same when Close was not called. Idempotent.
  CloseReport Close();

  ~Lake();
  Lake(const Lake&) = delete;
  Lake& operator=(const Lake&) = delete;

  duck::Database& db() { return *db_; }
  duck::Connection& conn() { return *conn_; }
  const std::string& dir() const { return dir_; }
  Mode mode() const { return mode_; }
  int64_t NowMs() const { return clock_->NowMs(); }

  // ---- Watermarks (docs/design.md rule 1). Readers see committed state; writers call the setters
  // inside the transaction that stores the rows the watermark covers.
  Result<std::map<std::string, Watermark>> Watermarks();
  Result<std::optional<Watermark>> GetWatermark(std::string_view table);
  Status SetWatermark(std::string_view table, const Watermark& watermark, int64_t run_id);
  // SetWatermark for several tables in one statement (the candle streams of one commit); each
  // table at most once.
  Status SetWatermarks(const std::vector<std::pair<std::string, Watermark>>& watermarks,
                       int64_t run_id);

  // ---- The ETL checkpoint (docs/design.md rule 3). nullopt before the first ETL run.
  Result<std::optional<Checkpoint>> GetCheckpoint();
  Status SetCheckpoint(const Checkpoint& checkpoint, int64_t run_id);
  Status ClearCheckpoint();

  // ---- Facts in predlake_meta (the kMeta* keys). GetMeta returns nullopt for a key never set;
  // SetMeta inserts or replaces it, inside the caller's transaction when there is one. kData on a
  // DuckDB error.
  Result<std::optional<std::string>> GetMeta(std::string_view key);
  Status SetMeta(std::string_view key, std::string_view value);
  // Deletes the key (nothing when it is not set), inside the caller's transaction when there is
  // one.
  Status DeleteMeta(std::string_view key);

  // ---- The run ledger. BeginRun commits a "running" row for `command` at once (so that a kill
  // leaves a trace), with the watermarks and checkpoint before the run, and returns its handle
  // (see Run for how it ends). kData on a DuckDB error. Mode::kWrite only.
  Result<Run> BeginRun(std::string command);

  // Deletes raw rows with timestamp >= from_ms and moves those tables' watermarks back to from_ms
  // (never below their start). A re-submitted prediction whose latest version goes but an earlier
  // one is before from_ms is not deleted: the version valid at from_ms becomes its row again
  // (counted as rows_updated), and the versions from from_ms on are forgotten. Does not open a
  // transaction: the caller wraps it with whatever else must commit together (the checkpoint
  // pull-back). Returns rows deleted (and restored) per table.
  Result<TableCountsMap> DeleteRawFrom(int64_t from_ms);

 private:
  Lake() = default;
  // `has_meta`: the lake has its predlake_meta table (a new lake has none), as the open found.
  // `recorded`: the schema fingerprint the lake records; `catalog_now`: the catalog's text as the
  // open read it (lake.cpp, Inspection).
  Status EnsureSchema(bool has_meta, const std::optional<std::string>& recorded,
                      const std::string& catalog_now);
  // OpenEmpty's schema: the same DDL and appended built columns as EnsureSchema on a new lake,
  // without its checks.
  Status CreateEmptySchema();
  Status AddMissingColumns();  // part of EnsureSchema's transaction
  // Part of EnsureSchema's transaction, around its DDL: the kUnkeyedTables that still have a
  // primary key (a schema-1 lake) are renamed aside, so that the DDL creates them anew without it;
  // RefillUnkeyed then copies their rows, in their order, and drops the old ones. Costs a read and
  // a write of those tables, once.
  Result<std::vector<std::string>> SetAsideKeyed();
  Status RefillUnkeyed(const std::vector<std::string>& tables);
  Status ReconcileAbandonedRuns();
  Result<std::string> WatermarksJson();
  friend class Run;

  std::string dir_;
  Mode mode_ = Mode::kRead;
  CloseCheckpoint close_checkpoint_ = CloseCheckpoint::kAlways;
  std::function<void(const std::string&)> notice_;  // OpenOptions::notice, for the open only
  bool opened_ = false;  // Open got through its checks (Close checkpoints only then)
  std::unique_ptr<duck::Database> db_;
  std::unique_ptr<duck::Connection> conn_;
  std::unique_ptr<Clock> owned_clock_;
  const Clock* clock_ = nullptr;
  int lock_fd_ = -1;
};

// Whether lake_dir can hold a lake for `mode`: kConfig "'DIR' is not a folder", "'DIR' cannot be
// read" (kRead: read and search), "'DIR' cannot be read and written" (kWrite), or "'DIR' cannot be
// used: WHY" (e.g. a path through a file). A missing folder is OK (the caller decides whether that
// is "no lake" or a folder to create). Lake::Open runs it first; the command line runs it for
// every command, so that even readers report a bad lake_dir as a config error.
Status CheckLakeDir(const std::string& lake_dir, Mode mode);

// The loop lock: an flock on <lake_dir>/loop.lock, held by `update --every` from its start to its
// end, so that a second loop on the same lake is refused even while the first is between runs
// (when the writer lock is free and readers get in). Distinct from the writer lock: one-shot
// writers and readers never take it. The kernel releases it when the process dies. Move-only.
class LoopLock {
 public:
  // Creates lake_dir when missing (kConfig when it cannot be used or created, as Lake::Open) and
  // takes the lock; kBusy "the lake at DIR is busy: another `update --every` loop runs on it (pid
  // N, `update --every`, since T)" when another process holds it.
  static Result<LoopLock> Take(const std::string& lake_dir, const std::string& command,
                               int64_t now_ms);
  LoopLock(LoopLock&& other) noexcept;
  LoopLock& operator=(LoopLock&&) = delete;
  LoopLock(const LoopLock&) = delete;
  LoopLock& operator=(const LoopLock&) = delete;
  ~LoopLock();

 private:
  LoopLock() = default;
  int fd_ = -1;
};

// Reads the lock file of lake_dir and describes the writer holding it ("pid 123, `raw update`,
// since 2024-07-26T01:00:00Z"), or "" when no live writer is recorded.
std::string DescribeLockHolder(const std::string& lake_dir);

// The other processes that have `file` open, from /proc (Linux; "" where /proc is not readable):
// "pid 123 (`predlake describe`)", and "and N more" when there are several. A process of another
// user whose descriptors cannot be read is not seen.
std::string DescribeFileUsers(const std::string& file);

}  // namespace predlake::lake
