#include "raw/store.hpp"

#include <algorithm>
#include <cctype>

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

size_t IndexOf(const TableDef& table) {
  const auto& all = RawTables();
  return static_cast<size_t>(&table - all.data());
}

std::string Ident(std::string_view name, std::string_view suffix = "") {
  return duck::QuoteIdent(std::string(name) + std::string(suffix));
}

std::string StagingDdl(const TableDef& t) {
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
  return "CREATE OR REPLACE TEMP TABLE " + StagingName(t) + " (" + cols + ")";
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
    RETURN_IF_ERROR(conn.Execute(StagingDdl(t), "create staging table for " + std::string(t.name)));
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
  RETURN_IF_ERROR(conn_->Execute("DELETE FROM " + stage, "empty " + stage));
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
  const std::string ids(kMergeIds), rows(kMergeRows);
  // The stored rows are read only where `stored_range` says a copy can be (the staged slot
  // range: the row groups of recent slots, not the whole table); the table is aliased `stored`.
  // The IDs that need merging: stored already (the fetch meets a stored version again, or a
  // newer one), or staged with more than one timestamp.
  RETURN_IF_ERROR(conn_->Execute(
      "CREATE OR REPLACE TEMP TABLE " + ids + " AS SELECT s.ID FROM " + stage + " AS s JOIN " +
          name + " AS stored ON stored.ID = s.ID WHERE " + stored_range + " UNION SELECT ID FROM " +
          stage + " GROUP BY ID HAVING count(DISTINCT timestamp) > 1",
      "find re-submitted IDs of " + name));
  ASSIGN_OR_RETURN(std::optional<int64_t> n,
                   conn_->QueryInt("SELECT count(*) FROM " + ids, "count re-submitted IDs"));
  if (n.value_or(0) == 0) return counts;
  // Every version known of those IDs, one per (ID, timestamp) (a stored copy wins over a staged
  // one of the same time): the latest is the row, each earlier one is superseded by the next.
  const std::string of_ids = "ID IN (SELECT ID FROM " + ids + ")";
  RETURN_IF_ERROR(conn_->Execute(
      "CREATE OR REPLACE TEMP TABLE " + rows + " AS WITH cand AS (SELECT " + columns +
          ", 0 AS src FROM " + name + " AS stored WHERE " + stored_range + " AND " + of_ids +
          " UNION ALL SELECT " + columns + ", 1 AS src FROM " + versions + " WHERE " + of_ids +
          " UNION ALL SELECT " + SelectList(table) + ", 2 AS src FROM " + stage + " WHERE " +
          of_ids +
          "), one AS (SELECT DISTINCT ON (ID, timestamp) * FROM cand ORDER BY ID, timestamp, src) "
          "SELECT *, lead(timestamp) OVER (PARTITION BY ID ORDER BY timestamp) AS superseded_at, "
          "bool_or(src = 0) OVER (PARTITION BY ID) AS stored FROM one",
      "merge versions of " + name));
  // The days of every version merged, the stored rows' among them: a replaced row leaves its day.
  RETURN_IF_ERROR(conn_->Execute(lake::RecordWrittenDaysSql(table, "SELECT timestamp FROM " + rows),
                                 "record the days of merged versions of " + name));
  RETURN_IF_ERROR(conn_->Execute(
      "UPDATE " + versions + " AS v SET superseded_at = m.superseded_at FROM " + rows +
          " AS m WHERE m.ID = v.ID AND m.timestamp = v.timestamp AND m.superseded_at IS NOT NULL "
          "AND m.superseded_at IS DISTINCT FROM v.superseded_at",
      "update versions of " + name));
  RETURN_IF_ERROR(conn_->Execute(
      "INSERT INTO " + versions + " (" + columns + ", superseded_at) SELECT " + columns +
          ", superseded_at FROM " + rows +
          " AS m WHERE m.superseded_at IS NOT NULL AND m.src <> 1 AND NOT EXISTS (SELECT 1 FROM " +
          versions + " AS v WHERE v.ID = m.ID AND v.timestamp = m.timestamp)",
      "record versions of " + name));
  ASSIGN_OR_RETURN(
      duck::QueryResult updated,
      conn_->Query(
          "UPDATE " + name + " AS stored SET " + SetList(table, "m") + " FROM " + rows +
              " AS m WHERE m.superseded_at IS NULL AND m.stored AND stored.ID = m.ID AND " +
              stored_range + " AND stored.timestamp IS DISTINCT FROM m.timestamp",
          "replace re-submitted rows of " + name));
  counts.rows_updated = updated.rows_changed();
  ASSIGN_OR_RETURN(duck::QueryResult inserted,
                   conn_->Query("INSERT INTO " + name + " (" + columns + ") SELECT " + columns +
                                    " FROM " + rows +
                                    " WHERE superseded_at IS NULL AND NOT stored ORDER BY "
                                    "timestamp, ID",
                                "store re-submitted rows of " + name));
  counts.rows_out = inserted.rows_changed();
  RETURN_IF_ERROR(
      conn_->Execute("DELETE FROM " + stage + " WHERE " + of_ids, "take merged rows off " + stage));
  return counts;
}

Result<lake::TableCounts> Stager::Store(const TableDef& table, const std::vector<Row>& rows) {
  RETURN_IF_ERROR(Stage(table, rows));
  return Flush(table);
}

Status Stager::Clear() {
  for (const TableDef& t : RawTables()) {
    RETURN_IF_ERROR(conn_->Execute("DELETE FROM " + StagingName(t), "empty staging tables"));
    staged_[IndexOf(t)] = 0;
  }
  return Status::Ok();
}

Result<TableStage> TableStage::Open(duck::Connection& conn, std::string_view table,
                                    std::string step) {
  std::string name = std::string(table) + "_stage";
  RETURN_IF_ERROR(conn.Execute("CREATE TEMP TABLE IF NOT EXISTS " + name + " AS SELECT * FROM " +
                                   std::string(table) + " LIMIT 0",
                               step));
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
  RETURN_IF_ERROR(conn_->Execute("DELETE FROM " + name_, step_));
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
  ASSIGN_OR_RETURN(
      auto range,
      conn.Query("SELECT count(*), count(*) FILTER (WHERE " + col +
                     " IS NULL) + (SELECT count(*) FROM " + std::string(table.name) + " WHERE " +
                     col + " IS NULL), coalesce(min(" + col + "), 0), coalesce(max(" + col +
                     "), 0) FROM (" + std::string(rows_sql) + ")",
                 step));
  auto chunk = range.NextChunk();
  if (!chunk || chunk->size() != 1) return Status::Internal(step + ": no range");
  if (chunk->GetInt64(0, 0) == 0) return std::string("FALSE");
  if (chunk->GetInt64(1, 0) > 0) return std::string("TRUE");
  return "stored." + col + " BETWEEN " + std::to_string(chunk->GetInt64(2, 0)) + " AND " +
         std::to_string(chunk->GetInt64(3, 0));
}

std::string InsertNewIdsSql(const TableDef& table, std::string_view rows_sql,
                            std::string_view stored_range) {
  const std::string name(table.name);
  const std::string key = Ident(table.columns[0].name);
  std::string sql = "INSERT INTO " + name + " (" + ColumnList(table) + ") SELECT " +
                    ColumnList(table) + " FROM (SELECT DISTINCT ON (" + key + ") * FROM (" +
                    std::string(rows_sql) + ")) AS n";
  if (stored_range != "FALSE") {
    sql += " WHERE NOT EXISTS (SELECT 1 FROM " + name + " AS stored WHERE stored." + key + " = n." +
           key + " AND " + std::string(stored_range) + ")";
  }
  // Timestamp order keeps the zone maps of a large insert (an import) tight.
  if (table.timestamp_column != lake::kNoColumn) {
    sql += " ORDER BY n." + Ident(table.columns[table.timestamp_column].name);
  }
  return sql;
}

std::string UpdateStoredIdsSql(const TableDef& table, std::string_view rows_sql,
                               std::string_view stored_range) {
  const std::string key = Ident(table.columns[0].name);
  std::string changed;
  for (const ColumnDef& c : table.columns.subspan(1)) {
    const std::string col = Ident(c.name);
    changed += (changed.empty() ? "" : " OR ") + ("stored." + col) + " IS DISTINCT FROM n." + col;
  }
  return "UPDATE " + std::string(table.name) + " AS stored SET " + SetList(table, "n") +
         " FROM (SELECT DISTINCT ON (" + key + ") * FROM (" + std::string(rows_sql) +
         ")) AS n WHERE stored." + key + " = n." + key + " AND " + std::string(stored_range) +
         " AND (" + changed + ")";
}

}  // namespace predlake::raw
