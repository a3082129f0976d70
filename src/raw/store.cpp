#include "raw/store.hpp"

namespace predlake::raw {
namespace {

size_t IndexOf(const TableDef& table) {
  const auto& all = RawTables();
  return static_cast<size_t>(&table - all.data());
}

std::string ColumnList(const TableDef& table, std::string_view prefix = "") {
  std::string out;
  for (const ColumnDef& c : table.columns) {
    if (!out.empty()) out += ", ";
    out += std::string(prefix) + duck::QuoteIdent(c.name);
  }
  return out;
}

}  // namespace

std::string StagingName(const TableDef& table) {
  return "predlake_stage_" + std::string(table.name);
}

Result<Stager> Stager::Create(duck::Connection& conn) {
  for (const TableDef& t : RawTables()) {
    RETURN_IF_ERROR(conn.Execute("CREATE TEMP TABLE IF NOT EXISTS " + StagingName(t) +
                                     " AS SELECT " + ColumnList(t) + " FROM " +
                                     std::string(t.name) + " LIMIT 0",
                                 "create staging table for " + std::string(t.name)));
  }
  Stager s(&conn);
  s.staged_.assign(RawTables().size(), 0);
  RETURN_IF_ERROR(s.Clear());
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
    RETURN_IF_ERROR(AppendRow(app, row));
  }
  RETURN_IF_ERROR(app.Close());
  staged_[IndexOf(table)] += static_cast<int64_t>(rows.size());
  return Status::Ok();
}

Result<StoreCounts> Stager::Flush(const TableDef& table) {
  StoreCounts counts;
  int64_t& staged = staged_[IndexOf(table)];
  counts.rows_in = staged;
  if (staged == 0) return counts;
  const std::string name(table.name);
  const std::string stage = StagingName(table);
  const std::string columns = ColumnList(table);
  // DISTINCT ON keeps one copy of an ID staged twice (a tie group re-read after a resumed run),
  // which ON CONFLICT DO UPDATE would otherwise refuse.
  const std::string select = "SELECT DISTINCT ON (ID) " + columns + " FROM " + stage;
  ASSIGN_OR_RETURN(duck::QueryResult inserted,
                   conn_->Query("INSERT INTO " + name + " (" + columns + ") " + select +
                                    " ON CONFLICT DO NOTHING",
                                "store " + name));
  counts.rows_out = inserted.rows_changed();
  if (table.upsert) {
    std::string set, changed;
    for (const ColumnDef& c : table.columns) {
      if (c.name == "ID") continue;
      const std::string col = duck::QuoteIdent(c.name);
      set += (set.empty() ? "" : ", ") + col + " = excluded." + col;
      changed +=
          (changed.empty() ? "" : " OR ") + name + "." + col + " IS DISTINCT FROM excluded." + col;
    }
    ASSIGN_OR_RETURN(
        duck::QueryResult updated,
        conn_->Query("INSERT INTO " + name + " (" + columns + ") " + select +
                         " ON CONFLICT (ID) DO UPDATE SET " + set + " WHERE " + changed,
                     "update " + name));
    counts.rows_updated = updated.rows_changed();
  }
  RETURN_IF_ERROR(conn_->Execute("DELETE FROM " + stage, "empty " + stage));
  staged = 0;
  return counts;
}

Result<StoreCounts> Stager::Store(const TableDef& table, const std::vector<Row>& rows) {
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

}  // namespace predlake::raw
