#include "duck/duck.hpp"

#include <duckdb.h>

#include <atomic>
#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <utility>

namespace predlake::duck {

struct ResultHolder {
  duckdb_result result{};
};

namespace {

// Every open connection of the process, with the depth of its Uninterruptible scopes, so that
// InterruptAll reaches them all. The mutex also keeps a connection from being closed while
// InterruptAll interrupts it.
struct LiveConnections {
  std::mutex mutex;
  std::unordered_map<_duckdb_connection*, int> shield_depth;
};

LiveConnections& Live() {
  static LiveConnections* live = new LiveConnections();  // never destroyed: used until exit
  return *live;
}

std::atomic<bool> g_interrupt_requested{false};

// kCancelled when InterruptAll was called and `conn` is not in an Uninterruptible scope.
Status RefuseIfInterrupted(_duckdb_connection* conn, std::string_view step) {
  if (!g_interrupt_requested.load()) return Status::Ok();
  LiveConnections& live = Live();
  std::lock_guard<std::mutex> lock(live.mutex);
  auto it = live.shield_depth.find(conn);
  if (it != live.shield_depth.end() && it->second > 0) return Status::Ok();
  return Status::Cancelled(std::string(step) + ": cancelled");
}

}  // namespace

namespace internal {

// DuckDB's destroy functions take the address of the handle and null it; ours hold the handle.
void CloseDatabase(_duckdb_database* db) noexcept { duckdb_close(&db); }
void Disconnect(_duckdb_connection* conn) noexcept {
  {
    LiveConnections& live = Live();
    std::lock_guard<std::mutex> lock(live.mutex);
    live.shield_depth.erase(conn);
  }
  duckdb_disconnect(&conn);
}
void DestroyResult(ResultHolder* result) noexcept {
  // DuckDB requires this even for a result whose query failed (it owns the error text).
  duckdb_destroy_result(&result->result);
  delete result;
}
void DestroyPrepared(_duckdb_prepared_statement* stmt) noexcept { duckdb_destroy_prepare(&stmt); }
void DestroyAppender(_duckdb_appender* app) noexcept { (void)duckdb_appender_destroy(&app); }
void DestroyDataChunk(_duckdb_data_chunk* chunk) noexcept { duckdb_destroy_data_chunk(&chunk); }

}  // namespace internal

namespace {

void DestroyConfig(_duckdb_config* config) noexcept { duckdb_destroy_config(&config); }
void DestroyErrorData(_duckdb_error_data* error) noexcept { duckdb_destroy_error_data(&error); }
void DestroyExtracted(_duckdb_extracted_statements* extracted) noexcept {
  duckdb_destroy_extracted(&extracted);
}
void DestroyLogicalType(_duckdb_logical_type* type) noexcept { duckdb_destroy_logical_type(&type); }

using ConfigHandle = Handle<_duckdb_config, &DestroyConfig>;
using ErrorDataHandle = Handle<_duckdb_error_data, &DestroyErrorData>;
using ExtractedHandle = Handle<_duckdb_extracted_statements, &DestroyExtracted>;
using LogicalTypeHandle = Handle<_duckdb_logical_type, &DestroyLogicalType>;

// The one place where a DuckDB failure becomes a Status: every failed DuckDB call ends here.
// `step` is our context, `message` DuckDB's text (null: unknown), `type` DuckDB's error class. Lock
// conflicts are kBusy so that callers can name the holder; interrupts are kCancelled; everything
// else is `code` (kData unless the failure can only be a bug in our use of the API) with the step
// as context, on one line.
Status Translate(std::string_view step, const char* message, duckdb_error_type type,
                 StatusCode code = StatusCode::kData) {
  std::string text = message ? message : "unknown DuckDB error";
  std::string context(step);
  if (text.find("Could not set lock on file") != std::string::npos ||
      text.find("Conflicting lock is held") != std::string::npos) {
    return Status::Busy(context + ": " + text);
  }
  if (type == DUCKDB_ERROR_INTERRUPT) return Status::Cancelled(context + ": cancelled");
  // DuckDB's messages can span lines (hints, caret markers); the contract is one line.
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return Status(code, context + ": " + text);
}

// The error of a failed query or execution.
Status TranslateResult(std::string_view step, duckdb_result& result) {
  return Translate(step, duckdb_result_error(&result), duckdb_result_error_type(&result));
}

// The error an appender holds after a failed call.
Status TranslateAppender(std::string_view step, _duckdb_appender* app, const char* fallback) {
  ErrorDataHandle error(app ? duckdb_appender_error_data(app) : nullptr);
  if (!error || !duckdb_error_data_has_error(error.Get())) {
    return Translate(step, fallback, DUCKDB_ERROR_INVALID);
  }
  return Translate(step, duckdb_error_data_message(error.Get()),
                   duckdb_error_data_error_type(error.Get()));
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
  const size_t places = static_cast<size_t>(scale);
  if (digits.size() <= places) digits.insert(0, places - digits.size() + 1, '0');
  // Built by appending: GCC 12 warns (-Wrestrict, falsely) about inserting the point in place.
  std::string out;
  out.reserve(digits.size() + 2);
  if (negative) out.push_back('-');
  out.append(digits, 0, digits.size() - places);
  out.push_back('.');
  out.append(digits, digits.size() - places, places);
  return out;
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
  duckdb_config raw_config = nullptr;
  if (duckdb_create_config(&raw_config) == DuckDBError) {
    return Translate("duckdb", "cannot create config", DUCKDB_ERROR_INVALID, StatusCode::kInternal);
  }
  ConfigHandle config(raw_config);
  auto set = [&](const char* key, const std::string& value) {
    return duckdb_set_config(config.Get(), key, value.c_str()) == DuckDBSuccess;
  };
  bool ok = true;
  if (options.read_only) ok = ok && set("access_mode", "READ_ONLY");
  if (options.threads > 0) ok = ok && set("threads", std::to_string(options.threads));
  if (!options.memory_limit.empty()) ok = ok && set("memory_limit", options.memory_limit);
  ok = ok && set("storage_compatibility_version", kStorageCompatibility) &&
       set("autoinstall_known_extensions", "false") && set("autoload_known_extensions", "false");
  const bool sealed = options.reach != Reach::kFull;
  if (sealed) {
    ok = ok && set("allow_community_extensions", "false") &&
         set("allow_unsigned_extensions", "false");
  }
  if (!ok) {
    return Translate("duckdb", "bad database option", DUCKDB_ERROR_SETTINGS, StatusCode::kInternal);
  }
  duckdb_database db = nullptr;
  char* error = nullptr;
  const char* c_path = path.empty() ? nullptr : path.c_str();
  duckdb_state state = duckdb_open_ext(c_path, &db, config.Get(), &error);
  if (state == DuckDBError) {
    Status st = Translate("open " + path, error, DUCKDB_ERROR_CONNECTION);
    if (error) duckdb_free(error);
    return st;
  }
  Database database(db);
  if (sealed) {
    ASSIGN_OR_RETURN(Connection conn, database.Connect());
    RETURN_IF_ERROR(Seal(conn, options.reach, {}));
  }
  return database;
}

Status Seal(Connection& conn, Reach reach, const std::vector<std::string>& readable_dirs) {
  if (reach == Reach::kFull) return Status::Ok();
  // Statements rather than config options: an empty temp_directory (no spilling, so no folder
  // beside the file) is refused in the config and once external access is off, the readable
  // folders must be named before it goes off, and lock_configuration must come last.
  std::string seal;
  if (!readable_dirs.empty()) {
    seal += "SET allowed_directories = [";
    for (size_t i = 0; i < readable_dirs.size(); ++i) {
      seal += (i ? ", " : "") + QuoteString(readable_dirs[i]);
    }
    seal += "]; ";
  }
  seal += "SET temp_directory = ''; ";
  if (reach == Reach::kSealed) seal += "SET enable_external_access = false; ";
  seal += "SET lock_configuration = true";
  return conn.Execute(seal, "seal the database");
}

Result<Connection> Database::Connect() {
  duckdb_connection conn = nullptr;
  if (duckdb_connect(db_.Get(), &conn) == DuckDBError) {
    return Translate("duckdb", "cannot connect", DUCKDB_ERROR_CONNECTION);
  }
  {
    LiveConnections& live = Live();
    std::lock_guard<std::mutex> lock(live.mutex);
    live.shield_depth[conn] = 0;
  }
  return Connection(conn);
}

// ---- DataChunk

DataChunk::DataChunk(_duckdb_data_chunk* chunk, const Type* types, const int* scales,
                     const int* physical)
    : chunk_(chunk), types_(types), scales_(scales), physical_(physical) {
  size_ = duckdb_data_chunk_get_size(chunk_.Get());
  size_t columns = duckdb_data_chunk_get_column_count(chunk_.Get());
  data_.resize(columns);
  validity_.resize(columns);
  for (size_t c = 0; c < columns; ++c) {
    duckdb_vector vec = duckdb_data_chunk_get_vector(chunk_.Get(), c);
    data_[c] = duckdb_vector_get_data(vec);
    validity_[c] = duckdb_vector_get_validity(vec);
  }
}

bool DataChunk::IsNull(size_t col, size_t row) const {
  return validity_[col] != nullptr && !duckdb_validity_row_is_valid(validity_[col], row);
}

int64_t DataChunk::GetInt64(size_t col, size_t row) const {
  switch (static_cast<duckdb_type>(physical_[col])) {
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
  if (static_cast<duckdb_type>(physical_[col]) == DUCKDB_TYPE_FLOAT) {
    return static_cast<const float*>(data_[col])[row];
  }
  assert(static_cast<duckdb_type>(physical_[col]) == DUCKDB_TYPE_DOUBLE);
  return static_cast<const double*>(data_[col])[row];
}

bool DataChunk::GetBool(size_t col, size_t row) const {
  assert(types_[col] == Type::kBoolean);
  return static_cast<const bool*>(data_[col])[row];
}

std::string_view DataChunk::GetString(size_t col, size_t row) const {
  assert(types_[col] == Type::kVarchar);
  auto* strings = static_cast<duckdb_string_t*>(data_[col]);
  duckdb_string_t* s = &strings[row];
  return std::string_view(duckdb_string_t_data(s), duckdb_string_t_length(*s));
}

std::optional<std::string> DataChunk::GetText(size_t col, size_t row) const {
  if (IsNull(col, row)) return std::nullopt;
  switch (types_[col]) {
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
      int scale = scales_[col];
      __int128 v = 0;
      switch (static_cast<duckdb_type>(physical_[col])) {
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
      if (static_cast<duckdb_type>(physical_[col]) == DUCKDB_TYPE_HUGEINT) {
        const duckdb_hugeint& h = static_cast<const duckdb_hugeint*>(data_[col])[row];
        return Int128ToString((static_cast<__int128>(h.upper) << 64) |
                              static_cast<__int128>(h.lower));
      }
      if (static_cast<duckdb_type>(physical_[col]) == DUCKDB_TYPE_UBIGINT) {
        return std::to_string(static_cast<const uint64_t*>(data_[col])[row]);
      }
      return std::nullopt;
  }
  return std::nullopt;
}

// ---- QueryResult

QueryResult::QueryResult(internal::ResultHandle result, std::string step)
    : result_(std::move(result)), step_(std::move(step)) {
  duckdb_result* r = &result_.Get()->result;
  size_t columns = duckdb_column_count(r);
  for (size_t c = 0; c < columns; ++c) {
    names_.emplace_back(duckdb_column_name(r, c));
    LogicalTypeHandle lt(duckdb_column_logical_type(r, c));
    duckdb_type t = duckdb_get_type_id(lt.Get());
    types_.push_back(MapType(t));
    if (t == DUCKDB_TYPE_DECIMAL) {
      scales_.push_back(duckdb_decimal_scale(lt.Get()));
      physical_.push_back(static_cast<int>(duckdb_decimal_internal_type(lt.Get())));
    } else {
      scales_.push_back(0);
      physical_.push_back(static_cast<int>(t));
    }
  }
}

int64_t QueryResult::rows_changed() const {
  return static_cast<int64_t>(duckdb_rows_changed(&result_.Get()->result));
}

std::optional<DataChunk> QueryResult::NextChunk() {
  duckdb_data_chunk chunk = duckdb_fetch_chunk(result_.Get()->result);
  if (chunk == nullptr) return std::nullopt;
  return DataChunk(chunk, types_.data(), scales_.data(), physical_.data());
}

Status QueryResult::error() const {
  duckdb_result* r = &result_.Get()->result;
  const char* message = duckdb_result_error(r);
  if (message == nullptr || *message == '\0') return Status::Ok();
  return Translate(step_, message, duckdb_result_error_type(r));
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

namespace {
// A failed bind is a bug in our SQL or its caller (a parameter that does not exist): kInternal.
Status BindResult(duckdb_state state, duckdb_prepared_statement stmt, const std::string& step,
                  size_t index) {
  if (state == DuckDBSuccess) return Status::Ok();
  const char* err = duckdb_prepare_error(stmt);
  const std::string text =
      "cannot bind parameter " + std::to_string(index) + (err ? std::string(": ") + err : "");
  return Translate(step, text.c_str(), DUCKDB_ERROR_INVALID_INPUT, StatusCode::kInternal);
}
}  // namespace

Status Prepared::Bind(size_t index, int64_t value) {
  return BindResult(duckdb_bind_int64(stmt_.Get(), index, value), stmt_.Get(), step_, index);
}
Status Prepared::Bind(size_t index, std::string_view value) {
  return BindResult(duckdb_bind_varchar_length(stmt_.Get(), index, value.data(), value.size()),
                    stmt_.Get(), step_, index);
}
Status Prepared::Bind(size_t index, bool value) {
  return BindResult(duckdb_bind_boolean(stmt_.Get(), index, value), stmt_.Get(), step_, index);
}
Status Prepared::Bind(size_t index, double value) {
  return BindResult(duckdb_bind_double(stmt_.Get(), index, value), stmt_.Get(), step_, index);
}
Status Prepared::BindNull(size_t index) {
  return BindResult(duckdb_bind_null(stmt_.Get(), index), stmt_.Get(), step_, index);
}

Result<QueryResult> Prepared::Execute() {
  RETURN_IF_ERROR(RefuseIfInterrupted(conn_, step_));
  internal::ResultHandle holder(new ResultHolder());
  if (duckdb_execute_prepared(stmt_.Get(), &holder.Get()->result) == DuckDBError) {
    return TranslateResult(step_, holder.Get()->result);
  }
  return QueryResult(std::move(holder), step_);
}

// ---- Appender

Status Appender::Check(int state, const char* what) {
  if (state == DuckDBSuccess) return Status::Ok();
  return TranslateAppender("append to " + table_ + " (" + what + ")", app_.Get(), nullptr);
}

Status Appender::Append(int64_t value) {
  return Check(duckdb_append_int64(app_.Get(), value), "int");
}
Status Appender::Append(std::string_view value) {
  return Check(duckdb_append_varchar_length(app_.Get(), value.data(), value.size()), "text");
}
Status Appender::Append(bool value) { return Check(duckdb_append_bool(app_.Get(), value), "bool"); }
Status Appender::Append(double value) {
  return Check(duckdb_append_double(app_.Get(), value), "double");
}
Status Appender::AppendNull() { return Check(duckdb_append_null(app_.Get()), "null"); }
Status Appender::EndRow() { return Check(duckdb_appender_end_row(app_.Get()), "end row"); }

Status Appender::Close() {
  if (!app_) return Status::Ok();
  Status st = Check(duckdb_appender_close(app_.Get()), "close");
  app_.Reset();
  return st;
}

// ---- Connection

Result<QueryResult> Connection::Query(std::string_view sql, std::string_view step) {
  RETURN_IF_ERROR(RefuseIfInterrupted(conn_.Get(), step));
  internal::ResultHandle holder(new ResultHolder());
  std::string text(sql);
  if (duckdb_query(conn_.Get(), text.c_str(), &holder.Get()->result) == DuckDBError) {
    return TranslateResult(step, holder.Get()->result);
  }
  return QueryResult(std::move(holder), std::string(step));
}

namespace {
void DestroyPending(_duckdb_pending_result* pending) noexcept { duckdb_destroy_pending(&pending); }
using PendingHandle = Handle<_duckdb_pending_result, &DestroyPending>;
}  // namespace

Result<QueryResult> Connection::QueryStreaming(std::string_view sql, std::string_view step) {
  ASSIGN_OR_RETURN(Prepared prepared, Prepare(sql, step));
  duckdb_pending_result raw = nullptr;
  const duckdb_state state = duckdb_pending_prepared_streaming(prepared.stmt_.Get(), &raw);
  PendingHandle pending(raw);  // destroyed even when the call failed, as DuckDB asks
  if (state == DuckDBError) {
    return Translate(step, duckdb_pending_error(raw), DUCKDB_ERROR_INVALID);
  }
  internal::ResultHandle holder(new ResultHolder());
  if (duckdb_execute_pending(pending.Get(), &holder.Get()->result) == DuckDBError) {
    return TranslateResult(step, holder.Get()->result);
  }
  return QueryResult(std::move(holder), std::string(step));
}

Result<size_t> Connection::CountStatements(std::string_view sql, std::string_view step) {
  std::string text(sql);
  duckdb_extracted_statements raw_extracted = nullptr;
  idx_t count = duckdb_extract_statements(conn_.Get(), text.c_str(), &raw_extracted);
  ExtractedHandle extracted(raw_extracted);
  if (count == 0) {
    const char* err = duckdb_extract_statements_error(extracted.Get());
    if (err) return Translate(step, err, DUCKDB_ERROR_PARSER);
  }
  return static_cast<size_t>(count);
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
  duckdb_prepared_statement raw = nullptr;
  std::string text(sql);
  const duckdb_state state = duckdb_prepare(conn_.Get(), text.c_str(), &raw);
  internal::PreparedHandle stmt(raw);  // destroyed even when the prepare failed, as DuckDB asks
  if (state == DuckDBError) return Translate(step, duckdb_prepare_error(raw), DUCKDB_ERROR_PARSER);
  return Prepared(std::move(stmt), std::string(step), conn_.Get());
}

Result<Appender> Connection::MakeAppender(const std::string& table) {
  duckdb_appender raw = nullptr;
  const duckdb_state state = duckdb_appender_create(conn_.Get(), nullptr, table.c_str(), &raw);
  internal::AppenderHandle app(raw);  // a failed create may still hand out an appender to destroy
  if (state == DuckDBError) return TranslateAppender("appender for " + table, raw, "cannot create");
  return Appender(std::move(app), table);
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
  duckdb_extracted_statements raw_extracted = nullptr;
  idx_t count = duckdb_extract_statements(conn_.Get(), text.c_str(), &raw_extracted);
  ExtractedHandle extracted(raw_extracted);
  std::vector<StatementInfo> out;
  if (count == 0) {
    const char* err = duckdb_extract_statements_error(extracted.Get());
    if (err) return Translate(step, err, DUCKDB_ERROR_PARSER);
    return out;
  }
  for (idx_t i = 0; i < count; ++i) {
    duckdb_prepared_statement raw = nullptr;
    const duckdb_state state =
        duckdb_prepare_extracted_statement(conn_.Get(), extracted.Get(), i, &raw);
    internal::PreparedHandle stmt(raw);
    if (state == DuckDBError) {
      return Translate(step, duckdb_prepare_error(raw), DUCKDB_ERROR_PARSER);
    }
    StatementInfo info;
    info.kind = StatementKindName(duckdb_prepared_statement_type(raw));
    idx_t columns = duckdb_prepared_statement_column_count(raw);
    for (idx_t c = 0; c < columns; ++c) {
      const char* name = duckdb_prepared_statement_column_name(raw, c);
      info.column_names.emplace_back(name ? name : "");
      if (name) duckdb_free(const_cast<char*>(name));
      info.column_types.push_back(MapType(duckdb_prepared_statement_column_type(raw, c)));
    }
    out.push_back(std::move(info));
  }
  return out;
}

void Connection::Interrupt() {
  if (conn_) duckdb_interrupt(conn_.Get());
}

void InterruptAll() {
  g_interrupt_requested.store(true);
  LiveConnections& live = Live();
  std::lock_guard<std::mutex> lock(live.mutex);
  for (const auto& [conn, depth] : live.shield_depth) {
    if (depth == 0) duckdb_interrupt(conn);
  }
}

bool InterruptRequested() { return g_interrupt_requested.load(); }

Uninterruptible::Uninterruptible(Connection& conn) : conn_(conn.conn_.Get()) {
  LiveConnections& live = Live();
  std::lock_guard<std::mutex> lock(live.mutex);
  ++live.shield_depth[conn_];
}

Uninterruptible::~Uninterruptible() {
  LiveConnections& live = Live();
  std::lock_guard<std::mutex> lock(live.mutex);
  auto it = live.shield_depth.find(conn_);
  if (it != live.shield_depth.end() && it->second > 0) --it->second;
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
  if (!open_ || !conn_) return;
  Uninterruptible shield(*conn_);
  (void)conn_->Execute("ROLLBACK", "rollback");
}

Status Transaction::Commit() {
  if (!open_) return Status::Internal("commit of a transaction that is not open");
  Status st = conn_->Execute("COMMIT", "commit");
  if (!st.ok()) {
    Uninterruptible shield(*conn_);
    (void)conn_->Execute("ROLLBACK", "rollback after failed commit");
  }
  open_ = false;
  return st;
}

Status Transaction::Rollback() {
  if (!open_) return Status::Ok();
  open_ = false;
  Uninterruptible shield(*conn_);
  return conn_->Execute("ROLLBACK", "rollback");
}

namespace {

Result<std::optional<int64_t>> CurrentThreads(Connection& conn) {
  return conn.QueryInt("SELECT CAST(current_setting('threads') AS BIGINT)",
                       "read the threads setting");
}

}  // namespace

Result<ThreadsSetting> ThreadsSetting::AtMost(Connection& conn, int threads) {
  ASSIGN_OR_RETURN(std::optional<int64_t> before, CurrentThreads(conn));
  if (!before || *before <= threads) return ThreadsSetting(nullptr, 0);
  RETURN_IF_ERROR(conn.Execute("SET threads = " + std::to_string(threads), "limit DuckDB threads"));
  return ThreadsSetting(&conn, *before);
}

Result<ThreadsSetting> ThreadsSetting::AtDefault(Connection& conn) {
  ASSIGN_OR_RETURN(std::optional<int64_t> before, CurrentThreads(conn));
  if (!before) return ThreadsSetting(nullptr, 0);
  // RESET is DuckDB's own default (cores, cgroup quota), which nothing else here can read.
  RETURN_IF_ERROR(conn.Execute("RESET threads", "restore DuckDB's default threads"));
  ASSIGN_OR_RETURN(std::optional<int64_t> after, CurrentThreads(conn));
  if (after == before) return ThreadsSetting(nullptr, 0);
  return ThreadsSetting(&conn, *before);
}

ThreadsSetting::~ThreadsSetting() {
  if (conn_ != nullptr) {
    (void)conn_->Execute("SET threads = " + std::to_string(before_), "restore DuckDB threads");
  }
}

}  // namespace predlake::duck
