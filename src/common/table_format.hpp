// Writers for a small result set in the three output formats of `--format table|csv|json`.
#pragma once

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

// A result set held as text. A nullopt cell is SQL NULL. `numeric[i]` marks column i as numeric:
// right-aligned in tables and unquoted in JSON (when the text is a valid JSON number; otherwise it
// is written as a string). Every row must have columns.size() cells; `numeric` may be empty (no
// numeric columns).
struct ResultSet {
  std::vector<std::string> columns;
  std::vector<bool> numeric;
  std::vector<std::vector<std::optional<std::string>>> rows;
};

// RFC 4180: a header row, then one line per row ("\r\n" is not used; lines end in "\n"). A field is
// quoted when it contains a comma, a quote, CR or LF, or leading/trailing spaces; NULL is an empty
// field and an empty string is written as "" so the two stay distinguishable.
void WriteCsv(std::ostream& out, const ResultSet& rs);

// One JSON document: an array of objects keyed by column name, NULL as null, then a newline.
// Invalid UTF-8 in cells is replaced by U+FFFD.
void WriteJson(std::ostream& out, const ResultSet& rs);

// An aligned text table with a header and a rule. When `max_width` > 0 the widest columns are
// narrowed so that a line fits in it, cutting long cells with "…"; NULL is shown as NULL. Widths
// count UTF-8 code points.
void WriteTable(std::ostream& out, const ResultSet& rs, int max_width);

// Dispatches on `format`; `max_width` applies to tables only.
void WriteResultSet(std::ostream& out, const ResultSet& rs, OutputFormat format, int max_width);

// The width in columns of the terminal behind `fd`, or 0 when it is not a terminal. The COLUMNS
// environment variable, when set to a positive integer, takes precedence for terminals.
int TerminalWidth(int fd);

}  // namespace predlake
