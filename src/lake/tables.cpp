#include "lake/tables.hpp"

#include <cstdint>

namespace predlake::lake {

std::string_view SqlTypeName(ColumnType type) {
  switch (type) {
    case ColumnType::kVarchar:
      return "VARCHAR";
    case ColumnType::kBoolean:
      return "BOOLEAN";
    case ColumnType::kBigint:
      return "BIGINT";
    case ColumnType::kDecimal:
      return "DECIMAL(38, 18)";
  }
  return "VARCHAR";
}

const TableDef* FindRawTable(std::string_view name) {
  for (const TableDef& t : kRawTableDefs) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

std::string RawTableList(std::string_view separator) {
  std::string out;
  for (std::string_view name : kRawTables) {
    if (!out.empty()) out += separator;
    out += name;
  }
  return out;
}

std::string RecordWrittenDaysSql(const TableDef& table, std::string_view rows_sql) {
  // Table names are plain identifiers (tables.hpp): no quote to escape. One number for the whole
  // statement, above every recorded one: the writer holds the lake alone, so numbers only grow.
  const std::string days(kRawDaysTable);
  std::string sql = "INSERT INTO " + days + " SELECT '" + std::string(table.name) +
                    "', predlake_day, (SELECT coalesce(max(write_seq), 0) + 1 FROM " + days +
                    ") FROM (SELECT DISTINCT " + std::string(kTimestampDaySql) +
                    " AS predlake_day FROM (";
  sql.append(rows_sql);
  sql +=
      ") WHERE \"timestamp\" IS NOT NULL) ON CONFLICT (table_name, day) DO UPDATE SET "
      "write_seq = excluded.write_seq";
  return sql;
}

std::string RecordCandleChangesSql(std::string_view rows_sql) {
  std::string sql = "INSERT INTO " + std::string(kCandleChangesTable) +
                    " SELECT exchange, pair, timeframe, min(\"timestamp\"), max(\"timestamp\") + 1 "
                    "FROM (";
  sql.append(rows_sql);
  sql += ") GROUP BY exchange, pair, timeframe";
  return sql;
}

size_t IdRangeColumn(const TableDef& table) {
  if (const size_t slot = ColumnIndex(table.columns, "slot"); slot != kNoColumn) return slot;
  return table.timestamp_column;
}

std::string OhlcvStreamName(std::string_view exchange, std::string_view pair,
                            std::string_view timeframe) {
  std::string out(kOhlcvStreamPrefix);
  out.append(exchange).append(":").append(pair).append(":").append(timeframe);
  return out;
}

std::string OhlcvId(std::string_view exchange, std::string_view pair, std::string_view timeframe,
                    int64_t open_ms) {
  std::string out(exchange);
  out.append("|").append(pair).append("|").append(timeframe).append("|");
  return out + std::to_string(open_ms);
}

std::string CreateTableSql(const TableDef& table) {
  std::string sql = "CREATE TABLE IF NOT EXISTS " + std::string(table.name) + " (";
  for (size_t i = 0; i < table.columns.size(); ++i) {
    const ColumnDef& c = table.columns[i];
    sql += i == 0 ? "\n  " : ",\n  ";
    sql += c.name;
    sql += ' ';
    sql += SqlTypeName(c.type);
    if (!table.Nullable(i)) {
      sql += " NOT NULL";
    }
  }
  if (table.keyed_by_timestamp) {
    sql += ",\n  PRIMARY KEY (";
    sql += table.KeySql();
    sql += ')';
  }
  return sql + "\n);\n";
}

}  // namespace predlake::lake
