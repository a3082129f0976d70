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

// The lake's amounts are DECIMAL(38, 18): 18 fractional and 20 integer digits.
inline constexpr int64_t kDecimalScale = 18;
inline constexpr int64_t kDecimalIntegerDigits = 20;

// "" when `text` is a decimal number the lake stores exactly: an optional '-', digits, optionally
// '.' and digits, optionally an exponent (e[+-]digits), whose exact value needs at most 18
// fractional and 20 integer digits (trailing zeros and the exponent taken into account). Else what
// is wrong, for a message after the field ("is not a decimal number", "needs 19 fractional digits;
// ..."): DuckDB's cast would round such a value silently.
std::string DecimalTextProblem(std::string_view text);
inline bool IsDecimalText(std::string_view text) { return DecimalTextProblem(text).empty(); }

// "[2024-07-26T00:00:00Z, 2024-07-26T02:00:00Z)", for messages.
std::string FormatWindow(int64_t from_ms, int64_t to_ms);

// Appends one cell (a decimal as its text).
Status AppendCell(duck::Appender& appender, const Cell& cell);

// Appends `row` (which must have one cell per column of the appender's table) and ends the row.
Status AppendRow(duck::Appender& appender, const Row& row);

}  // namespace predlake::raw
