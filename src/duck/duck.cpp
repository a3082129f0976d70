#include "duck/duck.hpp"

#include <duckdb.h>

#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace predlake::duck {

struct ResultHolder {
  duckdb_result result{};
  ~ResultHolder() { duckdb_destroy_result(&result); }
};

namespace {

// The one place where DuckDB's error text becomes a Status. Lock conflicts are kBusy so that
// callers can name the holder; interrupts are kCancelled; everything else is kData with the step as
// context.
Status Translate(std::string_view step, const char* message, duckdb_error_type type) {
  std::string text = message ? message : "unknown DuckDB error";
  std::string context(step);
  if (text.find("Could not set lock on file") != std::string::npos ||
      text.find("Conflicting lock is held") != std::string::npos) {
    return Status::Busy(context + ": " + text);
  }
  if (type == DUCKDB_ERROR_INTERRUPT) return Status::Cancelled(context + ": interrupted");
  // DuckDB's messages can span lines (hints, caret markers); the contract is one line.
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return Status::Data(context + ": " + text);
}

Type MapType(duckdb_type t) {
  switch (t) {
    case DUCKDB_TYPE_BOOLEAN:
      return Type::kBoolean;
    case DUCKDB_TYPE_TINYINT:
    case DUCKDB_TYPE_SMALLINT:
    case DUCKDB_TYPE_INTEGER:
    case DUCKDB_TYPE_BIGINT:
    case DUCKDB_TYPE_UTINYINT:
    case DUCKDB_TYPE_USMALLINT:
    case DUCKDB_TYPE_UINTEGER:
      return Type::kInteger;
    case DUCKDB_TYPE_FLOAT:
    case DUCKDB_TYPE_DOUBLE:
      return Type::kDouble;
    case DUCKDB_TYPE_VARCHAR:
      return Type::kVarchar;
    case DUCKDB_TYPE_DECIMAL:
      return Type::kDecimal;
    case DUCKDB_TYPE_TIMESTAMP:
      return Type::kTimestamp;
    default:
      return Type::kOther;
  }
}

std::string Int128ToString(__int128 v) {
  if (v == 0) return "0";
  bool negative = v < 0;
  unsigned __int128 u =
      negative ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  std::string digits;
  while (u > 0) {
    digits.push_back(static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  }
  if (negative) digits.push_back('-');
  return std::string(digits.rbegin(), digits.rend());
}

std::string DecimalToString(__int128 v, int scale) {
  if (scale == 0) return Int128ToString(v);
  bool negative = v < 0;
  std::string digits = Int128ToString(negative ? -v : v);
  if (static_cast<int>(digits.size()) <= scale) {
    digits.insert(0, static_cast<size_t>(scale) - digits.size() + 1, '0');
  }
  digits.insert(digits.size() - static_cast<size_t>(scale), ".");
  return negative ? "-" + digits : digits;
}

}  // namespace

std::string LibraryVersion() { return duckdb_library_version(); }

std::string QuoteIdent(std::string_view name) {
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

std::string QuoteString(std::string_view value) {
  std::string out = "'";
  for (char c : value) {
    if (c == '\'') out.push_back('\'');
    out.push_back(c);
  }
  out.push_back('\'');
  return out;
}

// ---- Database

Result<Database> Database::Open(const std::string& path, const Options& options) {
  duckdb_config config = nullptr;
  if (duckdb_create_config(&config) == DuckDBError)
    return Status::Internal("duckdb: cannot create config");
  auto set = [&](const char* key, const std::string& value) {
    return duckdb_set_config(config, key, value.c_str()) == DuckDBSuccess;
  };
  bool ok = true;
  if (options.read_only) ok = ok && set("access_mode", "READ_ONLY");
  if (options.threads > 0) ok = ok && set("threads", std::to_string(options.threads));
  if (!options.memory_limit.empty()) ok = ok && set("memory_limit", options.memory_limit);
  if (!ok) {
    duckdb_destroy_config(&config);
    return Status::Internal("duckdb: bad database option");
  }
  duckdb_database db = nullptr;
  char* error = nullptr;
  const char* c_path = path.empty() ? nullptr : path.c_str();
  duckdb_state state = duckdb_open_ext(c_path, &db, config, &error);
  duckdb_destroy_config(&config);
  if (state == DuckDBError) {
    Status st = Translate("open " + path, error, DUCKDB_ERROR_CONNECTION);
    if (error) duckdb_free(error);
    return st;
  }
  return Database(db);
}

Database::Database(Database&& other) noexcept : db_(std::exchange(other.db_, nullptr)) {}

Database& Database::operator=(Database&& other) noexcept {
  if (this != &other) {
    if (db_) {
      duckdb_database db = db_;
      duckdb_close(&db);
    }
    db_ = std::exchange(other.db_, nullptr);
  }
  return *this;
}

Database::~Database() {
  if (db_) {
    duckdb_database db = db_;
    duckdb_close(&db);
  }
}

Result<Connection> Database::Connect() {
  duckdb_connection conn = nullptr;
  if (duckdb_connect(db_, &conn) == DuckDBError) return Status::Data("duckdb: cannot connect");
  return Connection(conn);
}

// ---- DataChunk

DataChunk::DataChunk(_duckdb_data_chunk* chunk, const std::vector<Type>* types,
                     const std::vector<int>* scales, const std::vector<int>* physical)
    : chunk_(chunk), types_(types), scales_(scales), physical_(physical) {
  size_ = duckdb_data_chunk_get_size(chunk_);
  size_t columns = duckdb_data_chunk_get_column_count(chunk_);
  data_.resize(columns);
  validity_.resize(columns);
  for (size_t c = 0; c < columns; ++c) {
    duckdb_vector vec = duckdb_data_chunk_get_vector(chunk_, c);
    data_[c] = duckdb_vector_get_data(vec);
    validity_[c] = duckdb_vector_get_validity(vec);
  }
}

DataChunk::DataChunk(DataChunk&& other) noexcept
    : chunk_(std::exchange(other.chunk_, nullptr)),
      size_(other.size_),
      types_(other.types_),
      scales_(other.scales_),
      physical_(other.physical_),
      data_(std::move(other.data_)),
      validity_(std::move(other.validity_)) {}

DataChunk& DataChunk::operator=(DataChunk&& other) noexcept {
  if (this != &other) {
    if (chunk_) {
      duckdb_data_chunk c = chunk_;
      duckdb_destroy_data_chunk(&c);
    }
    chunk_ = std::exchange(other.chunk_, nullptr);
    size_ = other.size_;
    types_ = other.types_;
    scales_ = other.scales_;
    physical_ = other.physical_;
    data_ = std::move(other.data_);
    validity_ = std::move(other.validity_);
  }
  return *this;
}

DataChunk::~DataChunk() {
  if (chunk_) {
    duckdb_data_chunk c = chunk_;
    duckdb_destroy_data_chunk(&c);
  }
}

bool DataChunk::IsNull(size_t col, size_t row) const {
  return validity_[col] != nullptr && !duckdb_validity_row_is_valid(validity_[col], row);
}

int64_t DataChunk::GetInt64(size_t col, size_t row) const {
  switch (static_cast<duckdb_type>((*physical_)[col])) {
    case DUCKDB_TYPE_BOOLEAN:
      return static_cast<const bool*>(data_[col])[row] ? 1 : 0;
    case DUCKDB_TYPE_TINYINT:
      return static_cast<const int8_t*>(data_[col])[row];
    case DUCKDB_TYPE_SMALLINT:
      return static_cast<const int16_t*>(data_[col])[row];
    case DUCKDB_TYPE_INTEGER:
      return static_cast<const int32_t*>(data_[col])[row];
    case DUCKDB_TYPE_UTINYINT:
      return static_cast<const uint8_t*>(data_[col])[row];
    case DUCKDB_TYPE_USMALLINT:
      return static_cast<const uint16_t*>(data_[col])[row];
    case DUCKDB_TYPE_UINTEGER:
      return static_cast<const uint32_t*>(data_[col])[row];
    case DUCKDB_TYPE_BIGINT:
    case DUCKDB_TYPE_TIMESTAMP:
      return static_cast<const int64_t*>(data_[col])[row];
    default:
      assert(false && "GetInt64 on a non-integer column");
      return 0;
  }
}

double DataChunk::GetDouble(size_t col, size_t row) const {
  if (static_cast<duckdb_type>((*physical_)[col]) == DUCKDB_TYPE_FLOAT) {
    return static_cast<const float*>(data_[col])[row];
  }
  assert(static_cast<duckdb_type>((*physical_)[col]) == DUCKDB_TYPE_DOUBLE);
  return static_cast<const double*>(data_[col])[row];
}

bool DataChunk::GetBool(size_t col, size_t row) const {
  assert((*types_)[col] == Type::kBoolean);
  return static_cast<const bool*>(data_[col])[row];
}

std::string_view DataChunk::GetString(size_t col, size_t row) const {
  assert((*types_)[col] == Type::kVarchar);
  auto* strings = static_cast<duckdb_string_t*>(data_[col]);
  duckdb_string_t* s = &strings[row];
  return std::string_view(duckdb_string_t_data(s), duckdb_string_t_length(*s));
}

std::optional<std::string> DataChunk::GetText(size_t col, size_t row) const {
  if (IsNull(col, row)) return std::nullopt;
  switch ((*types_)[col]) {
    case Type::kBoolean:
      return GetBool(col, row) ? "true" : "false";
    case Type::kInteger:
    case Type::kTimestamp:
      return std::to_string(GetInt64(col, row));
    case Type::kDouble: {
      char buf[64];
      std::snprintf(buf, sizeof(buf), "%.17g", GetDouble(col, row));
      return std::string(buf);
    }
    case Type::kVarchar:
      return std::string(GetString(col, row));
    case Type::kDecimal: {
      int scale = (*scales_)[col];
      __int128 v = 0;
      switch (static_cast<duckdb_type>((*physical_)[col])) {
        case DUCKDB_TYPE_SMALLINT:
          v = static_cast<const int16_t*>(data_[col])[row];
          break;
        case DUCKDB_TYPE_INTEGER:
          v = static_cast<const int32_t*>(data_[col])[row];
          break;
        case DUCKDB_TYPE_BIGINT:
          v = static_cast<const int64_t*>(data_[col])[row];
          break;
        case DUCKDB_TYPE_HUGEINT: {
          const duckdb_hugeint& h = static_cast<const duckdb_hugeint*>(data_[col])[row];
          v = (static_cast<__int128>(h.upper) << 64) | static_cast<__int128>(h.lower);
          break;
        }
        default:
          return std::nullopt;
      }
      return DecimalToString(v, scale);
    }
    case Type::kOther:
      if (static_cast<duckdb_type>((*physical_)[col]) == DUCKDB_TYPE_HUGEINT) {
        const duckdb_hugeint& h = static_cast<const duckdb_hugeint*>(data_[col])[row];
        return Int128ToString((static_cast<__int128>(h.upper) << 64) |
                              static_cast<__int128>(h.lower));
      }
      if (static_cast<duckdb_type>((*physical_)[col]) == DUCKDB_TYPE_UBIGINT) {
        return std::to_string(static_cast<const uint64_t*>(data_[col])[row]);
      }
      return std::nullopt;
  }
  return std::nullopt;
}

// ---- QueryResult

QueryResult::QueryResult(std::unique_ptr<ResultHolder> result) : result_(std::move(result)) {
  duckdb_result* r = &result_->result;
  size_t columns = duckdb_column_count(r);
  for (size_t c = 0; c < columns; ++c) {
    names_.emplace_back(duckdb_column_name(r, c));
    duckdb_logical_type lt = duckdb_column_logical_type(r, c);
    duckdb_type t = duckdb_get_type_id(lt);
    types_.push_back(MapType(t));
    if (t == DUCKDB_TYPE_DECIMAL) {
      scales_.push_back(duckdb_decimal_scale(lt));
      physical_.push_back(static_cast<int>(duckdb_decimal_internal_type(lt)));
    } else {
      scales_.push_back(0);
      physical_.push_back(static_cast<int>(t));
    }
    duckdb_destroy_logical_type(&lt);
  }
}

QueryResult::QueryResult(QueryResult&& other) noexcept = default;
QueryResult& QueryResult::operator=(QueryResult&& other) noexcept = default;
QueryResult::~QueryResult() = default;

int64_t QueryResult::rows_changed() const {
  return static_cast<int64_t>(duckdb_rows_changed(&result_->result));
}

std::optional<DataChunk> QueryResult::NextChunk() {
  duckdb_data_chunk chunk = duckdb_fetch_chunk(result_->result);
  if (chunk == nullptr) return std::nullopt;
  return DataChunk(chunk, &types_, &scales_, &physical_);
}

std::vector<std::vector<std::optional<std::string>>> QueryResult::ToText() {
  std::vector<std::vector<std::optional<std::string>>> rows;
  while (auto chunk = NextChunk()) {
    for (size_t r = 0; r < chunk->size(); ++r) {
      std::vector<std::optional<std::string>> row;
      row.reserve(column_count());
      for (size_t c = 0; c < column_count(); ++c) row.push_back(chunk->GetText(c, r));
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

// ---- Prepared

Prepared::Prepared(Prepared&& other) noexcept
    : stmt_(std::exchange(other.stmt_, nullptr)), step_(std::move(other.step_)) {}

Prepared& Prepared::operator=(Prepared&& other) noexcept {
  if (this != &other) {
    if (stmt_) {
      duckdb_prepared_statement s = stmt_;
      duckdb_destroy_prepare(&s);
    }
    stmt_ = std::exchange(other.stmt_, nullptr);
    step_ = std::move(other.step_);
  }
  return *this;
}

Prepared::~Prepared() {
  if (stmt_) {
    duckdb_prepared_statement s = stmt_;
    duckdb_destroy_prepare(&s);
  }
}

namespace {
Status BindResult(duckdb_state state, duckdb_prepared_statement stmt, const std::string& step,
                  size_t index) {
  if (state == DuckDBSuccess) return Status::Ok();
  const char* err = duckdb_prepare_error(stmt);
  return Status::Internal(step + ": cannot bind parameter " + std::to_string(index) +
                          (err ? std::string(": ") + err : ""));
}
}  // namespace

Status Prepared::Bind(size_t index, int64_t value) {
  return BindResult(duckdb_bind_int64(stmt_, index, value), stmt_, step_, index);
}
Status Prepared::Bind(size_t index, std::string_view value) {
  return BindResult(duckdb_bind_varchar_length(stmt_, index, value.data(), value.size()), stmt_,
                    step_, index);
}
Status Prepared::Bind(size_t index, bool value) {
  return BindResult(duckdb_bind_boolean(stmt_, index, value), stmt_, step_, index);
}
Status Prepared::Bind(size_t index, double value) {
  return BindResult(duckdb_bind_double(stmt_, index, value), stmt_, step_, index);
}
Status Prepared::BindNull(size_t index) {
  return BindResult(duckdb_bind_null(stmt_, index), stmt_, step_, index);
}

Result<QueryResult> Prepared::Execute() {
  auto holder = std::make_unique<ResultHolder>();
  if (duckdb_execute_prepared(stmt_, &holder->result) == DuckDBError) {
    // The holder's destructor destroys the result, as DuckDB requires even after a failure.
    return Translate(step_, duckdb_result_error(&holder->result),
                     duckdb_result_error_type(&holder->result));
  }
  return QueryResult(std::move(holder));
}

// ---- Appender

Appender::Appender(Appender&& other) noexcept
    : app_(std::exchange(other.app_, nullptr)), table_(std::move(other.table_)) {}

Appender& Appender::operator=(Appender&& other) noexcept {
  if (this != &other) {
    if (app_) {
      duckdb_appender a = app_;
      duckdb_appender_destroy(&a);
    }
    app_ = std::exchange(other.app_, nullptr);
    table_ = std::move(other.table_);
  }
  return *this;
}

Appender::~Appender() {
  if (app_) {
    duckdb_appender a = app_;
    duckdb_appender_destroy(&a);
  }
}

Status Appender::Check(int state, const char* what) {
  if (state == DuckDBSuccess) return Status::Ok();
  const char* err = duckdb_appender_error(app_);
  std::string text = err ? err : "unknown error";
  for (char& c : text) {
    if (c == '\n') c = ' ';
  }
  return Status::Data(std::string("append to ") + table_ + " (" + what + "): " + text);
}

Status Appender::Append(int64_t value) { return Check(duckdb_append_int64(app_, value), "int"); }
Status Appender::Append(std::string_view value) {
  return Check(duckdb_append_varchar_length(app_, value.data(), value.size()), "text");
}
Status Appender::Append(bool value) { return Check(duckdb_append_bool(app_, value), "bool"); }
Status Appender::Append(double value) { return Check(duckdb_append_double(app_, value), "double"); }
Status Appender::AppendNull() { return Check(duckdb_append_null(app_), "null"); }
Status Appender::EndRow() { return Check(duckdb_appender_end_row(app_), "end row"); }

Status Appender::Close() {
  if (!app_) return Status::Ok();
  Status st = Check(duckdb_appender_close(app_), "close");
  duckdb_appender a = app_;
  duckdb_appender_destroy(&a);
  app_ = nullptr;
  return st;
}

// ---- Connection

Connection::Connection(Connection&& other) noexcept : conn_(std::exchange(other.conn_, nullptr)) {}

Connection& Connection::operator=(Connection&& other) noexcept {
  if (this != &other) {
    if (conn_) {
      duckdb_connection c = conn_;
      duckdb_disconnect(&c);
    }
    conn_ = std::exchange(other.conn_, nullptr);
  }
  return *this;
}

Connection::~Connection() {
  if (conn_) {
    duckdb_connection c = conn_;
    duckdb_disconnect(&c);
  }
}

Result<QueryResult> Connection::Query(std::string_view sql, std::string_view step) {
  auto holder = std::make_unique<ResultHolder>();
  std::string text(sql);
  if (duckdb_query(conn_, text.c_str(), &holder->result) == DuckDBError) {
    return Translate(step, duckdb_result_error(&holder->result),
                     duckdb_result_error_type(&holder->result));
  }
  return QueryResult(std::move(holder));
}

Status Connection::Execute(std::string_view sql, std::string_view step) {
  auto result = Query(sql, step);
  return result.status();
}

Result<std::optional<int64_t>> Connection::QueryInt(std::string_view sql, std::string_view step) {
  ASSIGN_OR_RETURN(QueryResult result, Query(sql, step));
  if (result.column_count() == 0) return Status::Internal(std::string(step) + ": no column");
  auto chunk = result.NextChunk();
  if (!chunk || chunk->size() == 0 || chunk->IsNull(0, 0)) return std::optional<int64_t>();
  Type t = result.column_types()[0];
  if (t != Type::kInteger && t != Type::kTimestamp && t != Type::kBoolean) {
    auto text = chunk->GetText(0, 0);
    char* end = nullptr;
    long long v = text ? std::strtoll(text->c_str(), &end, 10) : 0;
    if (!text || end == text->c_str() || *end != '\0') {
      return Status::Internal(std::string(step) + ": result is not an integer");
    }
    return std::optional<int64_t>(v);
  }
  return std::optional<int64_t>(chunk->GetInt64(0, 0));
}

Result<Prepared> Connection::Prepare(std::string_view sql, std::string_view step) {
  duckdb_prepared_statement stmt = nullptr;
  std::string text(sql);
  if (duckdb_prepare(conn_, text.c_str(), &stmt) == DuckDBError) {
    Status st = Translate(step, duckdb_prepare_error(stmt), DUCKDB_ERROR_PARSER);
    duckdb_destroy_prepare(&stmt);
    return st;
  }
  return Prepared(stmt, std::string(step));
}

Result<Appender> Connection::MakeAppender(const std::string& table) {
  duckdb_appender app = nullptr;
  if (duckdb_appender_create(conn_, nullptr, table.c_str(), &app) == DuckDBError) {
    const char* err = app ? duckdb_appender_error(app) : nullptr;
    Status st = Status::Data("appender for " + table + ": " + (err ? err : "cannot create"));
    if (app) duckdb_appender_destroy(&app);
    return st;
  }
  return Appender(app, table);
}

namespace {
const char* StatementKindName(duckdb_statement_type type) {
  switch (type) {
    case DUCKDB_STATEMENT_TYPE_SELECT:
      return "SELECT";
    case DUCKDB_STATEMENT_TYPE_INSERT:
      return "INSERT";
    case DUCKDB_STATEMENT_TYPE_UPDATE:
      return "UPDATE";
    case DUCKDB_STATEMENT_TYPE_EXPLAIN:
      return "EXPLAIN";
    case DUCKDB_STATEMENT_TYPE_DELETE:
      return "DELETE";
    case DUCKDB_STATEMENT_TYPE_PREPARE:
      return "PREPARE";
    case DUCKDB_STATEMENT_TYPE_CREATE:
      return "CREATE";
    case DUCKDB_STATEMENT_TYPE_EXECUTE:
      return "EXECUTE";
    case DUCKDB_STATEMENT_TYPE_ALTER:
      return "ALTER";
    case DUCKDB_STATEMENT_TYPE_TRANSACTION:
      return "TRANSACTION";
    case DUCKDB_STATEMENT_TYPE_COPY:
      return "COPY";
    case DUCKDB_STATEMENT_TYPE_ANALYZE:
      return "ANALYZE";
    case DUCKDB_STATEMENT_TYPE_VARIABLE_SET:
      return "VARIABLE_SET";
    case DUCKDB_STATEMENT_TYPE_CREATE_FUNC:
      return "CREATE_FUNC";
    case DUCKDB_STATEMENT_TYPE_DROP:
      return "DROP";
    case DUCKDB_STATEMENT_TYPE_EXPORT:
      return "EXPORT";
    case DUCKDB_STATEMENT_TYPE_PRAGMA:
      return "PRAGMA";
    case DUCKDB_STATEMENT_TYPE_VACUUM:
      return "VACUUM";
    case DUCKDB_STATEMENT_TYPE_CALL:
      return "CALL";
    case DUCKDB_STATEMENT_TYPE_SET:
      return "SET";
    case DUCKDB_STATEMENT_TYPE_LOAD:
      return "LOAD";
    case DUCKDB_STATEMENT_TYPE_RELATION:
      return "RELATION";
    case DUCKDB_STATEMENT_TYPE_EXTENSION:
      return "EXTENSION";
    case DUCKDB_STATEMENT_TYPE_LOGICAL_PLAN:
      return "LOGICAL_PLAN";
    case DUCKDB_STATEMENT_TYPE_ATTACH:
      return "ATTACH";
    case DUCKDB_STATEMENT_TYPE_DETACH:
      return "DETACH";
    case DUCKDB_STATEMENT_TYPE_MULTI:
      return "MULTI";
    default:
      return "UNKNOWN";
  }
}
}  // namespace

Result<std::vector<StatementInfo>> Connection::Inspect(std::string_view sql,
                                                       std::string_view step) {
  std::string text(sql);
  duckdb_extracted_statements extracted = nullptr;
  idx_t count = duckdb_extract_statements(conn_, text.c_str(), &extracted);
  std::vector<StatementInfo> out;
  if (count == 0) {
    const char* err = duckdb_extract_statements_error(extracted);
    Status st = err ? Translate(step, err, DUCKDB_ERROR_PARSER) : Status::Ok();
    duckdb_destroy_extracted(&extracted);
    if (!st.ok()) return st;
    return out;
  }
  for (idx_t i = 0; i < count; ++i) {
    duckdb_prepared_statement stmt = nullptr;
    if (duckdb_prepare_extracted_statement(conn_, extracted, i, &stmt) == DuckDBError) {
      Status st = Translate(step, duckdb_prepare_error(stmt), DUCKDB_ERROR_PARSER);
      duckdb_destroy_prepare(&stmt);
      duckdb_destroy_extracted(&extracted);
      return st;
    }
    StatementInfo info;
    info.kind = StatementKindName(duckdb_prepared_statement_type(stmt));
    idx_t columns = duckdb_prepared_statement_column_count(stmt);
    for (idx_t c = 0; c < columns; ++c) {
      const char* name = duckdb_prepared_statement_column_name(stmt, c);
      info.column_names.emplace_back(name ? name : "");
      if (name) duckdb_free(const_cast<char*>(name));
      info.column_types.push_back(MapType(duckdb_prepared_statement_column_type(stmt, c)));
    }
    duckdb_destroy_prepare(&stmt);
    out.push_back(std::move(info));
  }
  duckdb_destroy_extracted(&extracted);
  return out;
}

void Connection::Interrupt() {
  if (conn_) duckdb_interrupt(conn_);
}

// ---- Transaction

Result<Transaction> Transaction::Begin(Connection& conn) {
  RETURN_IF_ERROR(conn.Execute("BEGIN TRANSACTION", "begin transaction"));
  Transaction tx(&conn);
  tx.open_ = true;
  return tx;
}

Transaction::Transaction(Transaction&& other) noexcept
    : conn_(std::exchange(other.conn_, nullptr)), open_(std::exchange(other.open_, false)) {}

Transaction::~Transaction() {
  if (open_ && conn_) (void)conn_->Execute("ROLLBACK", "rollback");
}

Status Transaction::Commit() {
  if (!open_) return Status::Internal("commit of a transaction that is not open");
  Status st = conn_->Execute("COMMIT", "commit");
  if (!st.ok()) {
    (void)conn_->Execute("ROLLBACK", "rollback after failed commit");
  }
  open_ = false;
  return st;
}

Status Transaction::Rollback() {
  if (!open_) return Status::Ok();
  open_ = false;
  return conn_->Execute("ROLLBACK", "rollback");
}

}  // namespace predlake::duck
