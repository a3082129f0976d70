#include "ops/lake_info.hpp"

#include <algorithm>
#include <map>

namespace predlake::ops {

Result<std::optional<int64_t>> RecordedStart(lake::Lake& lake) {
  std::optional<int64_t> start;
  auto earlier = [&](int64_t t) { start = start ? std::min(*start, t) : t; };
  ASSIGN_OR_RETURN(auto marks, lake.Watermarks());
  for (const auto& [table, mark] : marks) earlier(mark.start_ms);
  ASSIGN_OR_RETURN(auto checkpoint, lake.GetCheckpoint());
  if (checkpoint) earlier(checkpoint->start_ms);
  return start;
}

namespace {

bool IsRawTable(std::string_view name) {
  return std::find(lake::kRawTables.begin(), lake::kRawTables.end(), name) !=
             lake::kRawTables.end() ||
         name == lake::kOhlcvTable.name;
}

int KindOrder(TableKind kind) {
  switch (kind) {
    case TableKind::kRaw:
      return 0;
    case TableKind::kSnapshot:
      return 1;
    case TableKind::kBuilt:
      return 2;
    case TableKind::kBookkeeping:
      return 3;
    case TableKind::kStaging:
      return 4;
  }
  return 5;
}

// Position inside its kind: raw tables in fetch order, the two bronze tables before other built
// tables, everything else by name.
int RankInKind(const TableRef& t) {
  if (t.kind == TableKind::kRaw) {
    return static_cast<int>(std::find(lake::kRawTables.begin(), lake::kRawTables.end(), t.name) -
                            lake::kRawTables.begin());
  }
  if (t.kind == TableKind::kBuilt) {
    if (t.name == kBronzePredictions) return 0;
    if (t.name == kBronzeSlots) return 1;
    return 2;
  }
  return 0;
}

bool IsNumericType(duck::Type type) {
  return type == duck::Type::kInteger || type == duck::Type::kDecimal ||
         type == duck::Type::kDouble;
}

}  // namespace

std::string_view TableKindName(TableKind kind) {
  switch (kind) {
    case TableKind::kRaw:
      return "raw";
    case TableKind::kSnapshot:
      return "snapshot";
    case TableKind::kBuilt:
      return "built";
    case TableKind::kBookkeeping:
      return "bookkeeping";
    case TableKind::kStaging:
      return "staging";
  }
  return "?";
}

bool IsStagingTable(std::string_view name) { return name.starts_with(lake::kEtlStagingPrefix); }

bool TableRef::HasColumn(std::string_view column) const {
  return std::find(columns.begin(), columns.end(), column) != columns.end();
}

Result<std::vector<TableRef>> ListTables(duck::Connection& conn) {
  ASSIGN_OR_RETURN(auto rows, QueryText(conn,
                                        "SELECT table_name, column_name FROM duckdb_columns() "
                                        "WHERE database_name = current_database() AND "
                                        "schema_name = 'main' ORDER BY table_name, column_index",
                                        "list tables"));
  std::map<std::string, TableRef> by_name;
  for (const auto& row : rows.rows) {
    TableRef& t = by_name[row[0].value_or("")];
    t.name = row[0].value_or("");
    t.columns.push_back(row[1].value_or(""));
  }
  std::vector<TableRef> tables;
  for (auto& [name, t] : by_name) {
    if (IsRawTable(name)) {
      t.kind = TableKind::kRaw;
    } else if (name == kContractsTable) {
      t.kind = TableKind::kSnapshot;
    } else if (name.starts_with(lake::kBookkeepingPrefix)) {
      t.kind = TableKind::kBookkeeping;
    } else if (IsStagingTable(name)) {
      t.kind = TableKind::kStaging;
    } else {
      t.kind = TableKind::kBuilt;
    }
    tables.push_back(std::move(t));
  }
  std::stable_sort(tables.begin(), tables.end(), [](const TableRef& a, const TableRef& b) {
    if (KindOrder(a.kind) != KindOrder(b.kind)) return KindOrder(a.kind) < KindOrder(b.kind);
    if (RankInKind(a) != RankInKind(b)) return RankInKind(a) < RankInKind(b);
    return a.name < b.name;
  });
  return tables;
}

std::string TimeExpression(const TableRef& table) {
  if (table.HasColumn("timestamp")) return "\"timestamp\"";
  if (table.HasColumn("slot")) return "\"slot\" * 1000";
  if (table.HasColumn("day")) return "epoch_ms(\"day\"::TIMESTAMP)";
  return "";
}

std::string FeedEpochsCte() {
  // A timeframe like "5m" is a count and a unit; anything else gives NULL and the feed is treated
  // as having an unknown epoch.
  const std::string tf_seconds =
      "CASE WHEN regexp_full_match(tf, '[0-9]+[smhd]') THEN "
      "TRY_CAST(left(tf, length(tf) - 1) AS BIGINT) * CASE right(tf, 1) WHEN 's' THEN 1 "
      "WHEN 'm' THEN 60 WHEN 'h' THEN 3600 ELSE 86400 END END";
  return "feed_epochs AS (SELECT contract, arg_min(epoch_s, priority) AS epoch_s FROM ("
         "SELECT lower(ID) AS contract, seconds_per_epoch AS epoch_s, 0 AS priority "
         "FROM pdr_contracts WHERE seconds_per_epoch > 0 "
         "UNION ALL SELECT contract, " +
         tf_seconds +
         ", 1 FROM (SELECT DISTINCT lower(contract) AS contract, timeframe AS tf "
         "FROM pdr_predictions) "
         "UNION ALL SELECT contract, " +
         tf_seconds +
         ", 2 FROM (SELECT DISTINCT lower(split_part(ID, '-', 1)) AS contract, timeframe AS tf "
         "FROM pdr_subscriptions)) WHERE epoch_s > 0 GROUP BY contract)";
}

Result<ResultSet> QueryText(duck::Connection& conn, std::string_view select_sql,
                            std::string_view step) {
  ASSIGN_OR_RETURN(auto infos, conn.Inspect(select_sql, step));
  if (infos.size() != 1) {
    return Status::Internal(std::string(step) + ": expected one statement");
  }
  ResultSet rs;
  rs.columns = infos[0].column_names;
  for (duck::Type t : infos[0].column_types) rs.numeric.push_back(IsNumericType(t));
  std::string wrapped = "SELECT CAST(COLUMNS(*) AS VARCHAR) FROM (\n" + std::string(select_sql) +
                        "\n) AS predlake_text";
  ASSIGN_OR_RETURN(auto result, conn.Query(wrapped, step));
  while (auto chunk = result.NextChunk()) {
    for (size_t r = 0; r < chunk->size(); ++r) {
      std::vector<std::optional<std::string>> row;
      row.reserve(result.column_count());
      for (size_t c = 0; c < result.column_count(); ++c) {
        if (chunk->IsNull(c, r)) {
          row.emplace_back(std::nullopt);
        } else {
          row.emplace_back(std::string(chunk->GetString(c, r)));
        }
      }
      rs.rows.push_back(std::move(row));
    }
  }
  return rs;
}

std::string OneLine(std::string_view message) {
  std::string text(message);
  // DuckDB appends "LINE 1: <the statement>" and a caret line; on one line the caret points
  // nowhere.
  size_t line = text.find("LINE ");
  while (line != std::string::npos) {
    size_t after = line + 5;
    size_t digits = after;
    while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
    if (digits > after && digits < text.size() && text[digits] == ':') {
      text.resize(line);
      break;
    }
    line = text.find("LINE ", after);
  }
  std::string out;
  bool space = false;
  for (char c : text) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return out;
}

}  // namespace predlake::ops
