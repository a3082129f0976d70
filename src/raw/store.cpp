#include "raw/store.hpp"

#include <algorithm>
#include <cctype>

#include "duck/sql_text.hpp"
#include "raw/embedded_sql.hpp"

namespace predlake::raw {
namespace {

// DuckDB's VARCHAR -> DECIMAL(38, 18) cast works digit by digit on 128-bit integers and costs
// microseconds per value, more than the rest of the insert path together. So a decimal is staged
// as its integer part (BIGINT) and its signed fraction ("-0.25", cast to the 64-bit-backed
// DECIMAL(18, 18)), whose exact sum is formed in SQL; text that does not split that way (an
// exponent, more than 18 digits on either side) is staged whole and cast the slow way.
constexpr std::string_view kIntSuffix = "__int";
constexpr std::string_view kFracSuffix = "__frac";
constexpr std::string_view kTextSuffix = "__text";

// The text of src/raw/sql/NAME.sql with its placeholders filled in.
Result<std::string> StoreSql(std::string_view name, const std::vector<duck::SqlValue>& values) {
  return duck::EmbeddedSqlText(EmbeddedSql(), name, values);
}

size_t IndexOf(const TableDef& table) {
  const auto& all = RawTables();
  return static_cast<size_t>(&table - all.data());
}

std::string Ident(std::string_view name, std::string_view suffix = "") {
  return duck::QuoteIdent(std::string(name) + std::string(suffix));
}

// The staging table's columns: a decimal column is staged as three (kIntSuffix, ...).
std::string StagingColumns(const TableDef& t) {
  std::string cols;
  for (const ColumnDef& c : t.columns) {
    if (!cols.empty()) cols += ", ";
    if (c.type == ColumnType::kDecimal) {
      cols += Ident(c.name, kIntSuffix) + " BIGINT, " + Ident(c.name, kFracSuffix) + " VARCHAR, " +
              Ident(c.name, kTextSuffix) + " VARCHAR";
    } else {
      cols += Ident(c.name) + " " + std::string(lake::SqlTypeName(c.type));
    }
  }
  return cols;
}

// The staged columns turned back into the table's values, in table order.
std::string SelectList(const TableDef& t) {
  std::string out;
  for (const ColumnDef& c : t.columns) {
    if (!out.empty()) out += ", ";
    if (c.type == ColumnType::kDecimal) {
      out += "CASE WHEN " + Ident(c.name, kTextSuffix) + " IS NOT NULL THEN CAST(" +
             Ident(c.name, kTextSuffix) + " AS DECIMAL(38, 18)) ELSE CAST(" +
             Ident(c.name, kIntSuffix) + " AS DECIMAL(38, 18)) + CAST(" +
             Ident(c.name, kFracSuffix) + " AS DECIMAL(18, 18)) END AS " + Ident(c.name);
    } else {
      out += Ident(c.name);
    }
  }
  return out;
}

std::string ColumnList(const TableDef& t) {
  std::string out;
  for (const ColumnDef& c : t.columns) {
    if (!out.empty()) out += ", ";
    out += Ident(c.name);
  }
  return out;
}

// The table's columns as `prefix.col = source.col` assignments, all but the key.
std::string SetList(const TableDef& t, std::string_view source) {
  std::string out;
  for (const ColumnDef& c : t.columns.subspan(1)) {
    if (!out.empty()) out += ", ";
    out += Ident(c.name) + " = " + std::string(source) + "." + Ident(c.name);
  }
  return out;
}

constexpr std::string_view kMergeIds = "predlake_stage_merge_ids";
constexpr std::string_view kMergeRows = "predlake_stage_merge_rows";

}  // namespace

std::optional<std::pair<int64_t, std::string>> SplitDecimal(std::string_view text) {
  size_t i = 0;
  const bool negative = !text.empty() && text[0] == '-';
  if (negative) ++i;
  const size_t int_begin = i;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  const size_t int_digits = i - int_begin;
  if (int_digits == 0 || int_digits > 18) return std::nullopt;
  std::string frac = negative ? "-0." : "0.";
  if (i < text.size()) {
    if (text[i] != '.') return std::nullopt;
    ++i;
    const size_t frac_begin = i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
    if (i != text.size() || i == frac_begin || i - frac_begin > 18) return std::nullopt;
    frac.append(text.substr(frac_begin));
  } else {
    frac += '0';
  }
  int64_t whole = 0;
  for (size_t k = int_begin; k < int_begin + int_digits; ++k) whole = whole * 10 + (text[k] - '0');
  return std::make_pair(negative ? -whole : whole, std::move(frac));
}

std::string StagingName(const TableDef& table) {
  return std::string(lake::kRawStagingPrefix) + std::string(table.name);
}

Result<Stager> Stager::Create(duck::Connection& conn) {
  for (const TableDef& t : RawTables()) {
    ASSIGN_OR_RETURN(std::string sql, StoreSql("stage_create", {{"stage", StagingName(t)},
                                                                {"columns", StagingColumns(t)}}));
    RETURN_IF_ERROR(conn.Execute(sql, "create staging table for " + std::string(t.name)));
  }
  Stager s(&conn);
  s.staged_.assign(RawTables().size(), 0);
  return s;
}

Status Stager::Stage(const TableDef& table, const std::vector<Row>& rows) {
  if (rows.empty()) return Status::Ok();
  ASSIGN_OR_RETURN(duck::Appender app, conn_->MakeAppender(StagingName(table)));
  for (const Row& row : rows) {
    if (row.size() != table.columns.size()) {
      return Status::Internal("a row for " + std::string(table.name) + " has " +
                              std::to_string(row.size()) + " cells");
    }
    for (size_t c = 0; c < row.size(); ++c) {
      const Cell& cell = row[c];
      if (table.columns[c].type != ColumnType::kDecimal) {
        RETURN_IF_ERROR(AppendCell(app, cell));
        continue;
      }
      const std::string* text = std::get_if<std::string>(&cell);
      auto split = text ? SplitDecimal(*text) : std::nullopt;
      if (split) {
        RETURN_IF_ERROR(app.Append(split->first));
        RETURN_IF_ERROR(app.Append(std::string_view(split->second)));
        RETURN_IF_ERROR(app.AppendNull());
      } else {
        RETURN_IF_ERROR(app.AppendNull());
        RETURN_IF_ERROR(app.AppendNull());
        RETURN_IF_ERROR(AppendCell(app, cell));
      }
    }
    RETURN_IF_ERROR(app.EndRow());
  }
  RETURN_IF_ERROR(app.Close());
  staged_[IndexOf(table)] += static_cast<int64_t>(rows.size());
  return Status::Ok();
}

Result<lake::TableCounts> Stager::Flush(const TableDef& table) {
  lake::TableCounts counts;
  const size_t index = IndexOf(table);
  counts.rows_in = staged_[index];
  if (staged_[index] == 0) return counts;
  const std::string name(table.name);
  const std::string stage = StagingName(table);
  const std::string ts = Ident(table.columns[table.timestamp_column].name);
  if (lake::RecordsWrittenDays(table)) {
    // Every staged row's day (a superset of the days whose rows change: a row offered again
    // unchanged counts too), for the exports (lake::kRawDaysTable).
    RETURN_IF_ERROR(conn_->Execute(
        lake::RecordWrittenDaysSql(table, "SELECT " + ts + " AS \"timestamp\" FROM " + stage),
        "record the days written in " + name));
  }
  ASSIGN_OR_RETURN(std::string stored_range, StoredIdRange(*conn_, table, "SELECT * FROM " + stage,
                                                           "find where " + name + " holds IDs"));
  if (table.versions != nullptr) {
    ASSIGN_OR_RETURN(lake::TableCounts merged, MergeVersions(table, stored_range));
    counts.rows_out += merged.rows_out;
    counts.rows_updated += merged.rows_updated;
    stored_range = "FALSE";  // MergeVersions took every staged ID the table holds off the stage
  }
  const std::string rows = "SELECT " + SelectList(table) + " FROM " + stage;
  if (table.upsert) {
    ASSIGN_OR_RETURN(duck::QueryResult updated,
                     conn_->Query(UpdateStoredIdsSql(table, rows, stored_range), "update " + name));
    counts.rows_updated += updated.rows_changed();
  }
  ASSIGN_OR_RETURN(duck::QueryResult inserted,
                   conn_->Query(InsertNewIdsSql(table, rows, stored_range), "store " + name));
  counts.rows_out += inserted.rows_changed();
  ASSIGN_OR_RETURN(std::string empty,
                   StoreSql("stage_empty", {{"stage", stage}, {"rows", "TRUE"}}));
  RETURN_IF_ERROR(conn_->Execute(empty, "empty " + stage));
  staged_[index] = 0;
  return counts;
}

Result<lake::TableCounts> Stager::MergeVersions(const TableDef& table,
                                                const std::string& stored_range) {
  lake::TableCounts counts;
  const std::string name(table.name);
  const std::string versions(table.versions->name);
  const std::string stage = StagingName(table);
  const std::string columns = ColumnList(table);
  const std::vector<duck::SqlValue> values = {{"table", name},
                                              {"versions", versions},
                                              {"stage", stage},
                                              {"ids", std::string(kMergeIds)},
                                              {"rows", std::string(kMergeRows)},
                                              {"columns", columns},
                                              {"staged_values", SelectList(table)},
                                              {"set_columns", SetList(table, "m")},
                                              {"stored_range", stored_range}};
  // The stored rows are read only where `stored_range` says a copy can be (the staged slot
  // range: the row groups of recent slots, not the whole table).
  ASSIGN_OR_RETURN(std::string find_ids, StoreSql("merge_find_ids", values));
  RETURN_IF_ERROR(conn_->Execute(find_ids, "find re-submitted IDs of " + name));
  ASSIGN_OR_RETURN(std::string count_ids, StoreSql("count_ids", values));
  ASSIGN_OR_RETURN(std::optional<int64_t> n, conn_->QueryInt(count_ids, "count re-submitted IDs"));
  if (n.value_or(0) == 0) return counts;
  ASSIGN_OR_RETURN(std::string merge, StoreSql("merge_versions", values));
  RETURN_IF_ERROR(conn_->Execute(merge, "merge versions of " + name));
  // The days of every version merged, the stored rows' among them: a replaced row leaves its day.
  RETURN_IF_ERROR(conn_->Execute(
      lake::RecordWrittenDaysSql(table, "SELECT timestamp FROM " + std::string(kMergeRows)),
      "record the days of merged versions of " + name));
  ASSIGN_OR_RETURN(std::string update_versions, StoreSql("merge_update_versions", values));
  RETURN_IF_ERROR(conn_->Execute(update_versions, "update versions of " + name));
  ASSIGN_OR_RETURN(std::string insert_versions, StoreSql("merge_insert_versions", values));
  RETURN_IF_ERROR(conn_->Execute(insert_versions, "record versions of " + name));
  ASSIGN_OR_RETURN(std::string replace, StoreSql("merge_replace_rows", values));
  ASSIGN_OR_RETURN(duck::QueryResult updated,
                   conn_->Query(replace, "replace re-submitted rows of " + name));
  counts.rows_updated = updated.rows_changed();
  ASSIGN_OR_RETURN(std::string insert_rows, StoreSql("merge_insert_rows", values));
  ASSIGN_OR_RETURN(duck::QueryResult inserted,
                   conn_->Query(insert_rows, "store re-submitted rows of " + name));
  counts.rows_out = inserted.rows_changed();
  ASSIGN_OR_RETURN(
      std::string take_off,
      StoreSql("stage_empty", {{"stage", stage},
                               {"rows", "ID IN (SELECT ID FROM " + std::string(kMergeIds) + ")"}}));
  RETURN_IF_ERROR(conn_->Execute(take_off, "take merged rows off " + stage));
  return counts;
}

Result<lake::TableCounts> Stager::Store(const TableDef& table, const std::vector<Row>& rows) {
  RETURN_IF_ERROR(Stage(table, rows));
  return Flush(table);
}

Status Stager::Clear() {
  for (const TableDef& t : RawTables()) {
    ASSIGN_OR_RETURN(std::string sql,
                     StoreSql("stage_empty", {{"stage", StagingName(t)}, {"rows", "TRUE"}}));
    RETURN_IF_ERROR(conn_->Execute(sql, "empty staging tables"));
    staged_[IndexOf(t)] = 0;
  }
  return Status::Ok();
}

Result<TableStage> TableStage::Open(duck::Connection& conn, std::string_view table,
                                    std::string step) {
  std::string name = std::string(table) + "_stage";
  ASSIGN_OR_RETURN(std::string sql, StoreSql("table_stage_create",
                                             {{"stage", name}, {"table", std::string(table)}}));
  RETURN_IF_ERROR(conn.Execute(sql, step));
  ASSIGN_OR_RETURN(duck::Appender appender, conn.MakeAppender(name));
  return TableStage(&conn, std::move(name), std::move(step), std::move(appender));
}

Result<int64_t> TableStage::Write(const std::string& count_sql,
                                  const std::vector<std::string>& statements) {
  RETURN_IF_ERROR(appender_.Close());
  int64_t changed = 0;
  bool any = true;  // no count: write
  if (!count_sql.empty()) {
    ASSIGN_OR_RETURN(std::optional<int64_t> rows, conn_->QueryInt(count_sql, step_));
    any = rows.value_or(0) > 0;
  }
  for (size_t i = 0; any && i < statements.size(); ++i) {
    ASSIGN_OR_RETURN(auto written, conn_->Query(statements[i], step_));
    changed += written.rows_changed();
  }
  ASSIGN_OR_RETURN(std::string empty,
                   StoreSql("stage_empty", {{"stage", name_}, {"rows", "TRUE"}}));
  RETURN_IF_ERROR(conn_->Execute(empty, step_));
  return changed;
}

Result<std::string> StoredIdRange(duck::Connection& conn, const TableDef& table,
                                  std::string_view rows_sql, const std::string& step) {
  const size_t column = lake::IdRangeColumn(table);
  if (column == lake::kNoColumn) return std::string("TRUE");
  const std::string col = Ident(table.columns[column].name);
  // The stored rows without the value are counted too: one of them could be a copy of any staged
  // ID. DuckDB skips the row groups whose statistics say they hold no NULL there, so asking is
  // cheap (0.2-1 ms on 10M rows).
  ASSIGN_OR_RETURN(std::string sql, StoreSql("stored_id_range", {{"col", col},
                                                                 {"table", std::string(table.name)},
                                                                 {"rows", std::string(rows_sql)}}));
  ASSIGN_OR_RETURN(auto range, conn.Query(sql, step));
  auto chunk = range.NextChunk();
  if (!chunk || chunk->size() != 1) return Status::Internal(step + ": no range");
  if (chunk->GetInt64(0, 0) == 0) return std::string("FALSE");
  if (chunk->GetInt64(1, 0) > 0) return std::string("TRUE");
  return "stored." + col + " BETWEEN " + std::to_string(chunk->GetInt64(2, 0)) + " AND " +
         std::to_string(chunk->GetInt64(3, 0));
}

namespace {

// The text of `name` filled in, or "" when the build lacks the file (tests/raw checks that every
// one fills): DuckDB then refuses the empty statement, and the caller's step says which.
std::string StoreSqlOrEmpty(std::string_view name, const std::vector<duck::SqlValue>& values) {
  Result<std::string> sql = StoreSql(name, values);
  return sql.ok() ? std::move(*sql) : std::string();
}

// The values of insert_*.sql and update_stored_ids.sql.
std::vector<duck::SqlValue> IdValues(const TableDef& table, std::string_view rows_sql,
                                     std::string_view stored_range) {
  // Timestamp order keeps the zone maps of a large insert (an import) tight.
  const std::string order = table.timestamp_column == lake::kNoColumn
                                ? ""
                                : "ORDER BY n." + Ident(table.columns[table.timestamp_column].name);
  std::string changed;
  for (const ColumnDef& c : table.columns.subspan(1)) {
    const std::string col = Ident(c.name);
    changed += (changed.empty() ? "" : " OR ") + ("stored." + col) + " IS DISTINCT FROM n." + col;
  }
  return {{"table", std::string(table.name)},          {"columns", ColumnList(table)},
          {"key", Ident(table.columns[0].name)},       {"rows", std::string(rows_sql)},
          {"stored_range", std::string(stored_range)}, {"order", order},
          {"set_columns", SetList(table, "n")},        {"changed", changed}};
}

}  // namespace

std::string InsertNewIdsSql(const TableDef& table, std::string_view rows_sql,
                            std::string_view stored_range) {
  return StoreSqlOrEmpty(stored_range == "FALSE" ? "insert_ids" : "insert_new_ids",
                         IdValues(table, rows_sql, stored_range));
}

std::string UpdateStoredIdsSql(const TableDef& table, std::string_view rows_sql,
                               std::string_view stored_range) {
  return StoreSqlOrEmpty("update_stored_ids", IdValues(table, rows_sql, stored_range));
}

}  // namespace predlake::raw
