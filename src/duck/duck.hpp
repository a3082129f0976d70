// The DuckDB layer: the only code that includes duckdb.h. Move-only RAII wrappers for every handle
// DuckDB hands out (one Handle template owns each), one function in duck.cpp that turns every
// DuckDB error into a Status (with the SQL step as context), a transaction guard, and chunk-wise
// reading of results.
//
// Thread safety: a Database may be shared by threads; a Connection and everything made from it
// (results, chunks, prepared statements, appenders) must be used by one thread at a time.
//
// Lifetimes:
// - Destroy what a Connection made (results, chunks, prepared statements, appenders) before the
//   Connection, and every Connection before its Database. A Transaction keeps a pointer to its
//   Connection, which must outlive it.
// - A DataChunk must not outlive the QueryResult it came from (it reads the result's column
//   metadata, and its data may live in the result). A string_view from DataChunk::GetString is
//   valid while its chunk lives. Moving a QueryResult or a DataChunk keeps both valid; fetching
//   the next chunk does not invalidate earlier ones.
// - A moved-from object holds no handle: it may only be destroyed or assigned to.
#pragma once

#include <cstdint>
#include <memory>  // unused here; kept for files that may get std::unique_ptr through this header
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.hpp"

// Opaque DuckDB handles, so that callers need not include duckdb.h.
struct _duckdb_database;
struct _duckdb_connection;
struct _duckdb_prepared_statement;
struct _duckdb_appender;
struct _duckdb_data_chunk;

namespace predlake::duck {

// A move-only owner of one DuckDB handle. `Raw` is the struct a DuckDB handle type points to
// (duckdb_database is _duckdb_database*), `kRelease` the function that closes or destroys it. Empty
// (null) when default-constructed or moved from; the handle is released exactly once, by Reset()
// or the destructor, and never while null.
template <typename Raw, void (*kRelease)(Raw*) noexcept>
class Handle {
 public:
  Handle() noexcept = default;
  explicit Handle(Raw* raw) noexcept : raw_(raw) {}
  Handle(Handle&& other) noexcept : raw_(std::exchange(other.raw_, nullptr)) {}
  Handle& operator=(Handle&& other) noexcept {
    if (this != &other) Reset(std::exchange(other.raw_, nullptr));
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() { Reset(); }

  Raw* Get() const noexcept { return raw_; }
  explicit operator bool() const noexcept { return raw_ != nullptr; }
  // Releases the handle held (if any) and takes ownership of `raw`.
  void Reset(Raw* raw = nullptr) noexcept {
    Raw* old = std::exchange(raw_, raw);
    if (old != nullptr) kRelease(old);
  }

 private:
  Raw* raw_ = nullptr;
};

struct ResultHolder;  // a duckdb_result on the heap (defined in duck.cpp)

namespace internal {
// The release functions of the handles below, defined in duck.cpp (duckdb_close,
// duckdb_disconnect, duckdb_destroy_result, ...). Not for use outside this header.
void CloseDatabase(_duckdb_database* db) noexcept;
void Disconnect(_duckdb_connection* conn) noexcept;
void DestroyResult(ResultHolder* result) noexcept;
void DestroyPrepared(_duckdb_prepared_statement* stmt) noexcept;
void DestroyAppender(_duckdb_appender* app) noexcept;
void DestroyDataChunk(_duckdb_data_chunk* chunk) noexcept;

using DatabaseHandle = Handle<_duckdb_database, &CloseDatabase>;
using ConnectionHandle = Handle<_duckdb_connection, &Disconnect>;
using ResultHandle = Handle<ResultHolder, &DestroyResult>;
using PreparedHandle = Handle<_duckdb_prepared_statement, &DestroyPrepared>;
using AppenderHandle = Handle<_duckdb_appender, &DestroyAppender>;
using DataChunkHandle = Handle<_duckdb_data_chunk, &DestroyDataChunk>;
}  // namespace internal

// DuckDB's own version string (e.g. "v1.5.6").
std::string LibraryVersion();

// Quotes an identifier ("a""b") or a string literal ('it''s') for SQL text.
std::string QuoteIdent(std::string_view name);
std::string QuoteString(std::string_view value);

// The column types the readers understand. Anything else reads as kOther (cast it to VARCHAR in
// SQL).
enum class Type {
  kBoolean,
  kInteger,  // TINYINT..BIGINT, UTINYINT..UINTEGER
  kDouble,   // FLOAT, DOUBLE
  kVarchar,
  kDecimal,
  kTimestamp,  // microseconds since the epoch
  kOther,
};

// What a database may reach beyond its own file. Every database is opened with extension
// autoloading and autoinstalling off (predlake needs no extension that is not built in, and never a
// download).
enum class Reach {
  kFull,  // files, ATTACH, COPY: whatever the statement asks for
  // Sealed: enable_external_access=false (no file but the database itself, no ATTACH, COPY, EXPORT,
  // INSTALL or LOAD; nothing created), community extensions off, no spilling to a temp directory,
  // and the configuration locked so that no statement can undo any of it.
  kSealed,
  // kSealed, except that any file may be read (enable_external_access stays on; whatever could
  // create a file must be refused by the caller before it is even bound, see ops::CheckReadOnly).
  kSealedReadFiles,
};

// The storage format of a new database file: the oldest DuckDB release that reads it. DuckDB 1.4.4
// and 1.5.6 both read and write it (a lake moves between them in either direction, tests/e2e/
// duckdb_versions.sh); named here so that a later DuckDB with a newer default does not make new
// lakes unreadable to the previous release.
inline constexpr const char* kStorageCompatibility = "v0.10.2";

struct Options {
  bool read_only = false;
  int threads = 0;           // 0: DuckDB's default
  std::string memory_limit;  // "" : DuckDB's default
  Reach reach = Reach::kFull;
};

class Connection;

// An open database file (move-only).
class Database {
 public:
  // Opens (creating if allowed) the database at `path` (":memory:" or "" for in-memory). Returns
  // kBusy when another process holds the file's lock, kData when the file is not a DuckDB database
  // or cannot be opened. A new file is written in kStorageCompatibility's storage format; an
  // existing one keeps the format it has.
  static Result<Database> Open(const std::string& path, const Options& options = {});

  // A new connection; failure is kData "duckdb: cannot connect".
  Result<Connection> Connect();

 private:
  explicit Database(_duckdb_database* db) : db_(db) {}
  internal::DatabaseHandle db_;
};

// One chunk of a result (up to 2048 rows), move-only; see the lifetimes above. Accessors take
// (column, row); reading a column as a type it is not is a bug (asserted in debug builds).
class DataChunk {
 public:
  size_t size() const { return size_; }
  bool IsNull(size_t col, size_t row) const;
  int64_t GetInt64(size_t col, size_t row) const;  // kInteger, kTimestamp, kBoolean (0/1)
  double GetDouble(size_t col, size_t row) const;  // kDouble
  bool GetBool(size_t col, size_t row) const;      // kBoolean
  std::string_view GetString(size_t col,
                             size_t row) const;  // kVarchar; valid while the chunk lives
  // Any supported type rendered as text (decimals exactly, with their scale); NULL gives nullopt.
  std::optional<std::string> GetText(size_t col, size_t row) const;

 private:
  friend class QueryResult;
  // The metadata pointers point into the result's vectors' elements, which stay put when the
  // result is moved.
  DataChunk(_duckdb_data_chunk* chunk, const Type* types, const int* scales, const int* physical);
  internal::DataChunkHandle chunk_;
  size_t size_ = 0;
  const Type* types_ = nullptr;
  const int* scales_ = nullptr;
  const int* physical_ = nullptr;
  std::vector<void*> data_;
  std::vector<uint64_t*> validity_;
};

// A materialized query result, read chunk by chunk (move-only).
class QueryResult {
 public:
  size_t column_count() const { return names_.size(); }
  const std::vector<std::string>& column_names() const { return names_; }
  const std::vector<Type>& column_types() const { return types_; }
  // Rows inserted, updated or deleted by the statement.
  int64_t rows_changed() const;

  // The next chunk, or nullopt when the result is exhausted (or, for a streaming result, failed).
  std::optional<DataChunk> NextChunk();
  // After NextChunk() returned nullopt: OK when the result was exhausted, else the error that ended
  // a streaming result (kCancelled when interrupted), with the step it was made for as context.
  Status error() const;

  // Convenience for small results: every row as text (NULL = nullopt).
  std::vector<std::vector<std::optional<std::string>>> ToText();

 private:
  friend class Connection;
  friend class Prepared;
  QueryResult(internal::ResultHandle result, std::string step);
  internal::ResultHandle result_;
  std::string step_;
  std::vector<std::string> names_;
  std::vector<Type> types_;
  std::vector<int> scales_;
  std::vector<int> physical_;
};

// A prepared statement (move-only), executable any number of times.
class Prepared {
 public:
  // Parameters are 1-based, as in SQL's $1. A bad index is kInternal "step: cannot bind parameter
  // N: DuckDB message".
  Status Bind(size_t index, int64_t value);
  Status Bind(size_t index, std::string_view value);
  Status Bind(size_t index, bool value);
  Status Bind(size_t index, double value);
  Status BindNull(size_t index);
  Result<QueryResult> Execute();

 private:
  friend class Connection;
  Prepared(internal::PreparedHandle stmt, std::string step, _duckdb_connection* conn)
      : stmt_(std::move(stmt)), step_(std::move(step)), conn_(conn) {}
  internal::PreparedHandle stmt_;
  std::string step_;
  _duckdb_connection* conn_ = nullptr;  // the connection it runs on (not owned), for interrupts
};

// Appends rows to one table (move-only). Values are cast to the column type by DuckDB (a string
// into a DECIMAL column is parsed exactly). Errors are kData "append to <table> (<what>): DuckDB
// message" (one line); after one, the appender is unusable. Close() must be called and checked: the
// destructor of an unclosed appender still flushes its rows (DuckDB's destroy does) but any error
// is lost.
class Appender {
 public:
  Status Append(int64_t value);
  Status Append(std::string_view value);
  Status Append(bool value);
  Status Append(double value);
  Status AppendNull();
  Status AppendOptional(const std::optional<std::string>& value) {
    return value ? Append(std::string_view(*value)) : AppendNull();
  }
  Status EndRow();
  // Flushes and closes; the error, if any, names the table.
  Status Close();

 private:
  friend class Connection;
  Appender(internal::AppenderHandle app, std::string table)
      : app_(std::move(app)), table_(std::move(table)) {}
  Status Check(int state, const char* what);
  internal::AppenderHandle app_;
  std::string table_;
};

// One statement of a SQL text, parsed and bound but not run (see Connection::Inspect).
struct StatementInfo {
  std::string kind;  // DuckDB's statement type in upper case: "SELECT", "INSERT", "EXPLAIN", ...
  std::vector<std::string> column_names;  // the columns it would return (may be empty)
  std::vector<Type> column_types;         // their types, parallel to column_names
};

// A connection to a Database (move-only).
class Connection {
 public:
  // Runs one or more statements, discarding results. Errors are kData "step: DuckDB message" (kBusy
  // for lock conflicts, kCancelled when interrupted).
  Status Execute(std::string_view sql, std::string_view step);
  // Runs one statement and returns its result.
  Result<QueryResult> Query(std::string_view sql, std::string_view step);
  // Runs one statement and returns a streaming result: NextChunk() produces the rows as the query
  // makes them, so that memory does not grow with the result. Nothing else may run on this
  // connection until the result is destroyed. Errors as Query (an error while streaming ends the
  // result early: see QueryResult::error()).
  Result<QueryResult> QueryStreaming(std::string_view sql, std::string_view step);
  // How many statements `sql` holds, parsed only (nothing is bound, so nothing can touch a file).
  // A syntax error is kData "step: DuckDB message".
  Result<size_t> CountStatements(std::string_view sql, std::string_view step);
  // A single BIGINT (or NULL -> nullopt) from the first column of the first row.
  Result<std::optional<int64_t>> QueryInt(std::string_view sql, std::string_view step);
  Result<Prepared> Prepare(std::string_view sql, std::string_view step);
  // An appender for `table` (in the default schema). An unknown table is kData "appender for
  // <table>: DuckDB message".
  Result<Appender> MakeAppender(const std::string& table);
  // Splits `sql` into statements and parses and binds each one without running any, so that a
  // caller can decide by kind before anything executes. A syntax error, an unknown table or column
  // is kData "step: DuckDB message" (one line). Empty text gives an empty vector.
  Result<std::vector<StatementInfo>> Inspect(std::string_view sql, std::string_view step);
  // Asks a running query on this connection to stop (callable from another thread or a signal
  // handler).
  void Interrupt();

 private:
  friend class Database;
  friend class Uninterruptible;
  explicit Connection(_duckdb_connection* conn) : conn_(conn) {}
  internal::ConnectionHandle conn_;
};

// Applies `reach` to the database `conn` belongs to (nothing for kFull) and locks its
// configuration; Database::Open does this for its Options::reach. `readable_dirs` stay readable
// under kSealed (an in-memory database whose views read Parquet files there). Returns the
// statement's error when DuckDB refuses (e.g. the configuration is locked already).
[[nodiscard]] Status Seal(Connection& conn, Reach reach,
                          const std::vector<std::string>& readable_dirs);

// ---- Stopping the process's work (docs/operations.md, "Signals").
//
// InterruptAll asks the running query of every open connection of the process to stop (DuckDB's
// duckdb_interrupt), and from then on every query (Query, Execute, Prepared::Execute) outside an
// Uninterruptible scope fails at once with kCancelled "STEP: cancelled". The request is sticky for
// the rest of the process. A query that was just starting can miss one call: callers repeat it
// (the signal watcher calls it every 100 ms) until the work has stopped. Thread-safe; not
// async-signal-safe (call it from a thread, not from a signal handler).
void InterruptAll();
// True once InterruptAll was called.
bool InterruptRequested();

// While alive, queries on `conn` are neither refused nor interrupted by InterruptAll: for the
// rollback and the ledger record that must follow an interrupt. Scopes nest. `conn` must outlive
// the scope. Not movable.
class Uninterruptible {
 public:
  explicit Uninterruptible(Connection& conn);
  ~Uninterruptible();
  Uninterruptible(const Uninterruptible&) = delete;
  Uninterruptible& operator=(const Uninterruptible&) = delete;

 private:
  _duckdb_connection* conn_;
};

// Rolls back on destruction unless Commit() succeeded. The rollbacks (the destructor, Rollback, and
// the one after a failed commit) run Uninterruptible.
class Transaction {
 public:
  static Result<Transaction> Begin(Connection& conn);
  Transaction(Transaction&& other) noexcept;
  Transaction& operator=(Transaction&&) = delete;
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction();

  Status Commit();
  Status Rollback();

 private:
  explicit Transaction(Connection* conn) : conn_(conn) {}
  Connection* conn_ = nullptr;
  bool open_ = false;
};

// Sets DuckDB's worker thread count (a setting of the whole database, not of one connection) for
// the object's lifetime and restores it after. Move-only. A failed restore is ignored: the setting
// is a speed choice, not a result.
class ThreadsSetting {
 public:
  // At most `threads`: a setting already at or under it is left alone.
  // Errors: kData "read the threads setting: ..." or "limit DuckDB threads: ...".
  static Result<ThreadsSetting> AtMost(Connection& conn, int threads);
  // DuckDB's default (every core the process may use), for work that moves many rows on a
  // database opened with fewer (lake::OpenOptions::threads); a setting already there is left alone.
  // Errors: kData "read the threads setting: ..." or "restore DuckDB's default threads: ...".
  static Result<ThreadsSetting> AtDefault(Connection& conn);
  ThreadsSetting(ThreadsSetting&& other) noexcept
      : conn_(std::exchange(other.conn_, nullptr)), before_(other.before_) {}
  ThreadsSetting& operator=(ThreadsSetting&&) = delete;
  ThreadsSetting(const ThreadsSetting&) = delete;
  ThreadsSetting& operator=(const ThreadsSetting&) = delete;
  ~ThreadsSetting();

 private:
  ThreadsSetting(Connection* conn, int64_t before) : conn_(conn), before_(before) {}
  Connection* conn_ = nullptr;  // nullptr: nothing to restore
  int64_t before_ = 0;
};

}  // namespace predlake::duck
