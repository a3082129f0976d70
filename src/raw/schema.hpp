// The raw tables as the raw module sees them: their definition (lake/tables.hpp, the one place that
// names their columns), and the in-memory row a fetched or imported record becomes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "common/status.hpp"
#include "duck/duck.hpp"
#include "lake/tables.hpp"

namespace predlake::raw {

using lake::ColumnDef;
using lake::ColumnType;
using lake::TableDef;

// The five raw tables in lake::kRawTables order (lake::kRawTableDefs).
inline decltype(lake::kRawTableDefs)& RawTables() { return lake::kRawTableDefs; }
// The raw table called `name`, or nullptr.
inline const TableDef* FindTable(std::string_view name) { return lake::FindRawTable(name); }

// One value: NULL, BIGINT, BOOLEAN, or text (VARCHAR, and DECIMAL kept as its exact decimal text).
using Cell = std::variant<std::monostate, int64_t, bool, std::string>;
// One row, cells in TableDef::columns order.
using Row = std::vector<Cell>;

// True when `text` is a plain decimal number DuckDB casts exactly into DECIMAL(38, 18): an optional
// '-', 1 to 20 integer digits, optionally '.' and digits, optionally an exponent (e[+-]digits).
bool IsDecimalText(std::string_view text);

// "[2024-07-26T00:00:00Z, 2024-07-26T02:00:00Z)", for messages.
std::string FormatWindow(int64_t from_ms, int64_t to_ms);

// Appends one cell (a decimal as its text).
Status AppendCell(duck::Appender& appender, const Cell& cell);

// Appends `row` (which must have one cell per column of the appender's table) and ends the row.
Status AppendRow(duck::Appender& appender, const Row& row);

}  // namespace predlake::raw
