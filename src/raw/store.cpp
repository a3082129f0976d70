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
  s.min_ts_.assign(RawTables().size(), INT64_MAX);
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
    if (const auto* ts = std::get_if<int64_t>(&row[table.timestamp_column])) {
      min_ts_[IndexOf(table)] = std::min(min_ts_[IndexOf(table)], *ts);
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

Result<lake::TableCounts> Stager::Flush(const TableDef& table,
                                        std::optional<int64_t> conflicts_up_to) {
  lake::TableCounts counts;
  const size_t index = IndexOf(table);
  counts.rows_in = staged_[index];
  if (staged_[index] == 0) return counts;
  const std::string name(table.name);
  const std::string stage = StagingName(table);
  const std::string columns = ColumnList(table);
  const std::string ts = Ident(table.columns[table.timestamp_column].name);
  const std::string key = Ident(table.columns[0].name);
  const bool any_new = !conflicts_up_to || *conflicts_up_to != kAllMayConflict;
  const bool any_old = conflicts_up_to && min_ts_[index] <= *conflicts_up_to;
  const std::string bound = conflicts_up_to ? std::to_string(*conflicts_up_to) : "";

  if (any_new) {
    std::string where = conflicts_up_to ? " WHERE " + ts + " > " + bound : "";
    auto inserted = conn_->Query("INSERT INTO " + name + " (" + columns + ") SELECT " +
                                     SelectList(table) + " FROM " + stage + where,
                                 "store new rows in " + name);
    if (!inserted.ok()) {
      plain_insert_failed_ = true;
      return inserted.status();
    }
    counts.rows_out += inserted->rows_changed();
  }
  if (any_old) {
    const std::string where =
        *conflicts_up_to == kAllMayConflict ? "" : " WHERE " + ts + " <= " + bound;
    // ON CONFLICT DO UPDATE refuses to touch a row twice in one statement, so keep one copy of
    // an ID staged twice (DO NOTHING skips such repeats by itself).
    const std::string select = std::string("SELECT ") +
                               (table.upsert ? "DISTINCT ON (" + key + ") " : "") +
                               SelectList(table) + " FROM " + stage + where;
    ASSIGN_OR_RETURN(duck::QueryResult inserted,
                     conn_->Query("INSERT INTO " + name + " (" + columns + ") " + select +
                                      " ON CONFLICT DO NOTHING",
                                  "store " + name));
    counts.rows_out += inserted.rows_changed();
    if (table.upsert) {
      std::string set, changed;
      for (const ColumnDef& c : table.columns.subspan(1)) {  // all but the key
        const std::string col = Ident(c.name);
        set += (set.empty() ? "" : ", ") + col + " = excluded." + col;
        changed += (changed.empty() ? "" : " OR ") + name + "." + col +
                   " IS DISTINCT FROM excluded." + col;
      }
      ASSIGN_OR_RETURN(
          duck::QueryResult updated,
          conn_->Query("INSERT INTO " + name + " (" + columns + ") " + select + " ON CONFLICT (" +
                           key + ") DO UPDATE SET " + set + " WHERE " + changed,
                       "update " + name));
      counts.rows_updated = updated.rows_changed();
    }
  }
  RETURN_IF_ERROR(conn_->Execute("DELETE FROM " + stage, "empty " + stage));
  staged_[index] = 0;
  min_ts_[index] = INT64_MAX;
  return counts;
}

Result<lake::TableCounts> Stager::Store(const TableDef& table, const std::vector<Row>& rows,
                                        std::optional<int64_t> conflicts_up_to) {
  RETURN_IF_ERROR(Stage(table, rows));
  return Flush(table, conflicts_up_to);
}

Status Stager::Clear() {
  for (const TableDef& t : RawTables()) {
    RETURN_IF_ERROR(conn_->Execute("DELETE FROM " + StagingName(t), "empty staging tables"));
    staged_[IndexOf(t)] = 0;
    min_ts_[IndexOf(t)] = INT64_MAX;
  }
  return Status::Ok();
}

}  // namespace predlake::raw
