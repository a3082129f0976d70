// Writers for result sets in the three output formats of `--format table|csv|json`: whole result
// sets (ResultSet) and row by row (RowWriter), so that a large result streams.
#pragma once

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.hpp"

namespace predlake {

enum class OutputFormat { kTable, kCsv, kJson };

// Parses "table", "csv" or "json"; anything else is a kUsage status naming the input.
Result<OutputFormat> ParseOutputFormat(std::string_view name);

// What a column holds, for the writers (see ResultSet).
enum class ColumnKind {
  kText,     // text: tables may cut it to fit the width (unless it reads as a name or a time)
  kNumber,   // an integer or a double: right-aligned, a JSON number when it is one
  kDecimal,  // an exact decimal: right-aligned, a JSON string so that no digit is lost
  kBoolean,  // "true"/"false": JSON true/false
  kTime,     // a date or timestamp: never cut
};

// A result set held as text. A nullopt cell is SQL NULL. Every row must have columns.size() cells.
// Column kinds: `kinds[i]` when `kinds` is not empty; otherwise `numeric[i]` marks column i as
// kNumber (and kText when false or absent; `numeric` may be empty).
struct ResultSet {
  std::vector<std::string> columns;
  std::vector<bool> numeric;
  std::vector<ColumnKind> kinds;
  std::vector<std::vector<std::optional<std::string>>> rows;
};

using Row = std::vector<std::optional<std::string>>;

// Writes rows as they come. Begin() once with the header (`header.rows` is ignored), Add() per row,
// End() once. CSV and JSON write each row at once (memory does not grow with the result); a table
// must know its column widths, so it keeps at most `table_row_cap` rows, prints those, and ends
// with a line saying how many rows were left out and that --format csv or json prints them all.
class RowWriter {
 public:
  virtual ~RowWriter() = default;
  virtual void Begin(const ResultSet& header) = 0;
  virtual void Add(Row row) = 0;
  virtual void End() = 0;
};

// The number of rows a streamed table shows (kTableRowCap).
inline constexpr size_t kTableRowCap = 10000;

// A writer for `format` on `out` (which must outlive it); `max_width` applies to tables only.
std::unique_ptr<RowWriter> MakeRowWriter(std::ostream& out, OutputFormat format, int max_width,
                                         size_t table_row_cap = kTableRowCap);

// RFC 4180: a header row, then one line per row ("\r\n" is not used; lines end in "\n"). A field is
// quoted when it contains a comma, a quote, CR or LF, or leading/trailing spaces; NULL is an empty
// field and an empty string is written as "" so the two stay distinguishable.
void WriteCsv(std::ostream& out, const ResultSet& rs);

// One JSON document: an array of objects keyed by column name, NULL as null, then a newline.
// Booleans are true/false, numbers bare, exact decimals and everything else strings. Invalid UTF-8
// in cells is replaced by U+FFFD.
void WriteJson(std::ostream& out, const ResultSet& rs);

// An aligned text table with a header and a rule; NULL is shown as NULL, and control characters
// are escaped (\n, \t, \r, \xNN; C1 controls as \u00NN) so that data cannot move the cursor or
// break the alignment. When `max_width` > 0 and a line would be longer, free-text columns (text
// holding white space that is not a time) are narrowed first, widest first, cutting their cells
// with "…"; then other text columns. Numbers, booleans, times and text that reads as a name (an
// identifier of up to 64 letters, digits, _ and ., such as a table name) or a time
// are never cut: a line that still does not fit is left
// longer than the width. Widths count UTF-8 code points.
void WriteTable(std::ostream& out, const ResultSet& rs, int max_width);

// Dispatches on `format`; `max_width` applies to tables only.
void WriteResultSet(std::ostream& out, const ResultSet& rs, OutputFormat format, int max_width);

// The width in columns of the terminal behind `fd`, or 0 when it is not a terminal. The COLUMNS
// environment variable, when set to a positive integer, takes precedence for terminals.
int TerminalWidth(int fd);

}  // namespace predlake
