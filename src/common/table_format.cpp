#include "common/table_format.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <nlohmann/json.hpp>

namespace predlake {
namespace {

constexpr std::string_view kEllipsis = "…";
constexpr int kMinColumnWidth = 4;
constexpr std::string_view kNull = "NULL";

bool IsNumeric(const ResultSet& rs, size_t col) {
  return col < rs.numeric.size() && rs.numeric[col];
}

bool IsContinuationByte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

size_t CodePoints(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += IsContinuationByte(c) ? 0 : 1;
  return n;
}

// The first `n` code points of `s`.
std::string_view PrefixCodePoints(std::string_view s, size_t n) {
  size_t seen = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (!IsContinuationByte(s[i])) {
      if (seen == n) return s.substr(0, i);
      ++seen;
    }
  }
  return s;
}

// JSON's number grammar; DuckDB renders DECIMAL and integers in it, but not inf/nan.
bool IsJsonNumber(std::string_view s) {
  size_t i = 0;
  auto digits = [&] {
    size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i - start;
  };
  if (i < s.size() && s[i] == '-') ++i;
  if (i >= s.size()) return false;
  if (s[i] == '0') {
    ++i;
  } else if (digits() == 0) {
    return false;
  }
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (digits() == 0) return false;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (digits() == 0) return false;
  }
  return i == s.size();
}

std::string JsonString(std::string_view s) {
  return nlohmann::json(std::string(s))
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void WriteCsvField(std::ostream& out, std::string_view s) {
  bool quote = s.empty() || s.find_first_of(",\"\r\n") != std::string_view::npos ||
               s.front() == ' ' || s.back() == ' ';
  if (!quote) {
    out << s;
    return;
  }
  out << '"';
  for (char c : s) {
    if (c == '"') out << '"';
    out << c;
  }
  out << '"';
}

// Control characters would break the table's alignment.
std::string Displayable(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  return out;
}

std::string Fit(const std::string& s, size_t width) {
  if (CodePoints(s) <= width) return s;
  if (width == 0) return "";
  return std::string(PrefixCodePoints(s, width - 1)) + std::string(kEllipsis);
}

}  // namespace

Result<OutputFormat> ParseOutputFormat(std::string_view name) {
  if (name == "table") return OutputFormat::kTable;
  if (name == "csv") return OutputFormat::kCsv;
  if (name == "json") return OutputFormat::kJson;
  return Status::Usage("unknown format '" + std::string(name) + "' (expected table, csv or json)");
}

void WriteCsv(std::ostream& out, const ResultSet& rs) {
  for (size_t c = 0; c < rs.columns.size(); ++c) {
    if (c) out << ',';
    WriteCsvField(out, rs.columns[c]);
  }
  out << '\n';
  for (const auto& row : rs.rows) {
    for (size_t c = 0; c < row.size(); ++c) {
      if (c) out << ',';
      if (row[c]) WriteCsvField(out, *row[c]);
    }
    out << '\n';
  }
}

void WriteJson(std::ostream& out, const ResultSet& rs) {
  std::vector<std::string> keys;
  keys.reserve(rs.columns.size());
  for (const std::string& col : rs.columns) keys.push_back(JsonString(col));
  out << '[';
  for (size_t r = 0; r < rs.rows.size(); ++r) {
    out << (r ? ",\n  {" : "\n  {");
    const auto& row = rs.rows[r];
    for (size_t c = 0; c < row.size() && c < keys.size(); ++c) {
      if (c) out << ", ";
      out << keys[c] << ": ";
      if (!row[c]) {
        out << "null";
      } else if (IsNumeric(rs, c) && IsJsonNumber(*row[c])) {
        out << *row[c];
      } else {
        out << JsonString(*row[c]);
      }
    }
    out << '}';
  }
  out << (rs.rows.empty() ? "]\n" : "\n]\n");
}

void WriteTable(std::ostream& out, const ResultSet& rs, int max_width) {
  const size_t ncol = rs.columns.size();
  if (ncol == 0) return;
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> cells;
  std::vector<size_t> width(ncol, 0);
  for (size_t c = 0; c < ncol; ++c) {
    header.push_back(Displayable(rs.columns[c]));
    width[c] = CodePoints(header[c]);
  }
  for (const auto& row : rs.rows) {
    std::vector<std::string> line;
    for (size_t c = 0; c < ncol; ++c) {
      line.push_back(c < row.size() && row[c] ? Displayable(*row[c]) : std::string(kNull));
      width[c] = std::max(width[c], CodePoints(line.back()));
    }
    cells.push_back(std::move(line));
  }

  if (max_width > 0) {
    const size_t budget = static_cast<size_t>(max_width);
    auto total = [&] {
      size_t sum = 2 * (ncol - 1);
      for (size_t w : width) sum += w;
      return sum;
    };
    // Narrow the widest column one step at a time: short columns (ids, counts) stay whole.
    while (total() > budget) {
      auto widest = std::max_element(width.begin(), width.end());
      if (*widest <= static_cast<size_t>(kMinColumnWidth)) break;
      --*widest;
    }
  }

  auto write_line = [&](const std::vector<std::string>& line, bool header_line) {
    std::string text;
    for (size_t c = 0; c < ncol; ++c) {
      std::string cell = Fit(line[c], width[c]);
      size_t pad = width[c] - CodePoints(cell);
      if (c) text += "  ";
      if (IsNumeric(rs, c) && !header_line) {
        text.append(pad, ' ');
        text += cell;
      } else {
        text += cell;
        if (c + 1 < ncol) text.append(pad, ' ');
      }
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out << text << '\n';
  };
  write_line(header, true);
  std::string rule;
  for (size_t c = 0; c < ncol; ++c) {
    if (c) rule += "  ";
    rule.append(width[c], '-');
  }
  out << rule << '\n';
  for (const auto& line : cells) write_line(line, false);
}

void WriteResultSet(std::ostream& out, const ResultSet& rs, OutputFormat format, int max_width) {
  switch (format) {
    case OutputFormat::kTable:
      WriteTable(out, rs, max_width);
      return;
    case OutputFormat::kCsv:
      WriteCsv(out, rs);
      return;
    case OutputFormat::kJson:
      WriteJson(out, rs);
      return;
  }
}

int TerminalWidth(int fd) {
  if (!isatty(fd)) return 0;
  if (const char* env = std::getenv("COLUMNS")) {
    int cols = 0;
    std::string_view s(env);
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), cols);
    if (ec == std::errc() && ptr == s.data() + s.size() && cols > 0) return cols;
  }
  winsize ws{};
  if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 80;
}

}  // namespace predlake
