// The DuckDB layer: the only code that includes duckdb.h. Move-only RAII wrappers for every handle
// DuckDB hands out, one place that turns a DuckDB error into a Status (with the SQL step as
// context), a transaction guard, and chunk-wise reading of results.
//
// Thread safety: a Database may be shared by threads; a Connection and everything made from it
// (results, prepared statements, appenders) must be used by one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.hpp"

// Opaque DuckDB handles, so that callers need not include duckdb.h.
struct _duckdb_database;
struct _duckdb_connection;
struct _duckdb_prepared_statement;
struct _duckdb_appender;
struct _duckdb_data_chunk;

namespace predlake::duck {

struct ResultHolder;  // owns a duckdb_result (defined in duck.cpp)

// DuckDB's own version string (e.g. "v1.4.4").
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

struct Options {
  bool read_only = false;
  int threads = 0;           // 0: DuckDB's default
  std::string memory_limit;  // "" : DuckDB's default
};

class Connection;

class Database {
 public:
  // Opens (creating if allowed) the database at `path` (":memory:" or "" for in-memory). Returns
  // kBusy when another process holds the file's lock, kData when the file is not a DuckDB database
  // or cannot be opened.
  static Result<Database> Open(const std::string& path, const Options& options = {});

  Database(Database&& other) noexcept;
  Database& operator=(Database&& other) noexcept;
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;
  ~Database();

  Result<Connection> Connect();

 private:
  explicit Database(_duckdb_database* db) : db_(db) {}
  _duckdb_database* db_ = nullptr;
};

// One chunk of a result (up to 2048 rows). Accessors take (column, row); reading a column as a type
// it is not is a bug (asserted in debug builds).
class DataChunk {
 public:
  DataChunk(DataChunk&& other) noexcept;
  DataChunk& operator=(DataChunk&& other) noexcept;
  DataChunk(const DataChunk&) = delete;
  DataChunk& operator=(const DataChunk&) = delete;
  ~DataChunk();

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
  struct Column;
  DataChunk(_duckdb_data_chunk* chunk, const std::vector<Type>* types,
            const std::vector<int>* scales, const std::vector<int>* physical);
  _duckdb_data_chunk* chunk_ = nullptr;
  size_t size_ = 0;
  const std::vector<Type>* types_ = nullptr;
  const std::vector<int>* scales_ = nullptr;
  const std::vector<int>* physical_ = nullptr;
  std::vector<void*> data_;
  std::vector<uint64_t*> validity_;
};

// A materialized query result, read chunk by chunk.
class QueryResult {
 public:
  QueryResult(QueryResult&& other) noexcept;
  QueryResult& operator=(QueryResult&& other) noexcept;
  QueryResult(const QueryResult&) = delete;
  QueryResult& operator=(const QueryResult&) = delete;
  ~QueryResult();

  size_t column_count() const { return names_.size(); }
  const std::vector<std::string>& column_names() const { return names_; }
  const std::vector<Type>& column_types() const { return types_; }
  // Rows inserted, updated or deleted by the statement.
  int64_t rows_changed() const;

  // The next chunk, or nullopt when the result is exhausted.
  std::optional<DataChunk> NextChunk();

  // Convenience for small results: every row as text (NULL = nullopt).
  std::vector<std::vector<std::optional<std::string>>> ToText();

 private:
  friend class Connection;
  friend class Prepared;
  explicit QueryResult(std::unique_ptr<ResultHolder> result);
  std::unique_ptr<ResultHolder> result_;
  std::vector<std::string> names_;
  std::vector<Type> types_;
  std::vector<int> scales_;
  std::vector<int> physical_;
};

class Prepared {
 public:
  Prepared(Prepared&& other) noexcept;
  Prepared& operator=(Prepared&& other) noexcept;
  Prepared(const Prepared&) = delete;
  Prepared& operator=(const Prepared&) = delete;
  ~Prepared();

  // Parameters are 1-based, as in SQL's $1.
  Status Bind(size_t index, int64_t value);
  Status Bind(size_t index, std::string_view value);
  Status Bind(size_t index, bool value);
  Status Bind(size_t index, double value);
  Status BindNull(size_t index);
  Result<QueryResult> Execute();

 private:
  friend class Connection;
  Prepared(_duckdb_prepared_statement* stmt, std::string step)
      : stmt_(stmt), step_(std::move(step)) {}
  _duckdb_prepared_statement* stmt_ = nullptr;
  std::string step_;
};

// Appends rows to one table. Values are cast to the column type by DuckDB (a string into a DECIMAL
// column is parsed exactly). Close() must be called and checked; the destructor of an unclosed
// appender discards nothing already flushed but reports no errors.
class Appender {
 public:
  Appender(Appender&& other) noexcept;
  Appender& operator=(Appender&& other) noexcept;
  Appender(const Appender&) = delete;
  Appender& operator=(const Appender&) = delete;
  ~Appender();

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
  Appender(_duckdb_appender* app, std::string table) : app_(app), table_(std::move(table)) {}
  Status Check(int state, const char* what);
  _duckdb_appender* app_ = nullptr;
  std::string table_;
};

// One statement of a SQL text, parsed and bound but not run (see Connection::Inspect).
struct StatementInfo {
  std::string kind;  // DuckDB's statement type in upper case: "SELECT", "INSERT", "EXPLAIN", ...
  std::vector<std::string> column_names;  // the columns it would return (may be empty)
  std::vector<Type> column_types;         // their types, parallel to column_names
};

class Connection {
 public:
  Connection(Connection&& other) noexcept;
  Connection& operator=(Connection&& other) noexcept;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection();

  // Runs one or more statements, discarding results. Errors are kData "step: DuckDB message" (kBusy
  // for lock conflicts, kCancelled when interrupted).
  Status Execute(std::string_view sql, std::string_view step);
  // Runs one statement and returns its result.
  Result<QueryResult> Query(std::string_view sql, std::string_view step);
  // A single BIGINT (or NULL -> nullopt) from the first column of the first row.
  Result<std::optional<int64_t>> QueryInt(std::string_view sql, std::string_view step);
  Result<Prepared> Prepare(std::string_view sql, std::string_view step);
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
  explicit Connection(_duckdb_connection* conn) : conn_(conn) {}
  _duckdb_connection* conn_ = nullptr;
};

// Rolls back on destruction unless Commit() succeeded.
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

}  // namespace predlake::duck
