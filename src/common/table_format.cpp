#include "common/table_format.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <nlohmann/json.hpp>

namespace predlake {
namespace {

constexpr std::string_view kEllipsis = "…";
constexpr int kMinColumnWidth = 4;
constexpr std::string_view kNull = "NULL";

ColumnKind KindOf(const ResultSet& rs, size_t col) {
  if (!rs.kinds.empty()) return col < rs.kinds.size() ? rs.kinds[col] : ColumnKind::kText;
  return col < rs.numeric.size() && rs.numeric[col] ? ColumnKind::kNumber : ColumnKind::kText;
}

bool IsRightAligned(ColumnKind kind) {
  return kind == ColumnKind::kNumber || kind == ColumnKind::kDecimal;
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

// Control characters would move the cursor or break the alignment: escaped, as C would.
std::string Displayable(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  static constexpr char kHex[] = "0123456789abcdef";
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xf]);
    } else if (c == 0xc2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(s[i + 1]) <= 0x9f) {
      const unsigned char c1 = static_cast<unsigned char>(s[++i]);
      out += "\\u00";
      out.push_back(kHex[c1 >> 4]);
      out.push_back(kHex[c1 & 0xf]);
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out;
}

std::string Fit(const std::string& s, size_t width) {
  if (CodePoints(s) <= width) return s;
  if (width == 0) return "";
  return std::string(PrefixCodePoints(s, width - 1)) + std::string(kEllipsis);
}

bool IsAsciiDigit(char c) { return c >= '0' && c <= '9'; }

// A date or time as DuckDB or predlake print them: YYYY-MM-DD, then anything (time, zone).
bool LooksLikeTime(std::string_view s) {
  if (s.size() < 10) return false;
  for (size_t i = 0; i < 10; ++i) {
    if (i == 4 || i == 7 ? s[i] != '-' : !IsAsciiDigit(s[i])) return false;
  }
  return true;
}

// An identifier (a table, column or command name): up to 64 letters, digits, _ and ., so no white
// space and no dash (the ids of events, with their dashes, may be cut).
bool LooksLikeName(std::string_view s) {
  if (s.size() > 64) return false;
  for (char c : s) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.')) {
      return false;
    }
  }
  return true;
}

// How readily a column gives up width: 0 first (free text), 1 next (other text), 2 never (numbers,
// booleans, times, and text columns whose every cell reads as a name or every cell as a time).
int CutRank(ColumnKind kind, const std::vector<std::vector<std::string>>& cells, size_t col) {
  if (kind != ColumnKind::kText) return 2;
  bool all_names = true;
  bool all_times = true;
  bool free_text = false;
  for (const auto& line : cells) {
    const std::string& cell = line[col];
    if (cell == kNull) continue;
    all_names = all_names && LooksLikeName(cell);
    all_times = all_times && LooksLikeTime(cell);
    free_text = free_text || cell.find(' ') != std::string::npos;
  }
  if (all_names || all_times) return 2;
  return free_text ? 0 : 1;
}

}  // namespace

Result<OutputFormat> ParseOutputFormat(std::string_view name) {
  if (name == "table") return OutputFormat::kTable;
  if (name == "csv") return OutputFormat::kCsv;
  if (name == "json") return OutputFormat::kJson;
  return Status::Usage("unknown format '" + std::string(name) + "' (expected table, csv or json)");
}

namespace {

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

class CsvRowWriter final : public RowWriter {
 public:
  explicit CsvRowWriter(std::ostream& out) : out_(out) {}
  void Begin(const ResultSet& header) override {
    for (size_t c = 0; c < header.columns.size(); ++c) {
      if (c) out_ << ',';
      WriteCsvField(out_, header.columns[c]);
    }
    out_ << '\n';
  }
  void Add(Row row) override {
    for (size_t c = 0; c < row.size(); ++c) {
      if (c) out_ << ',';
      if (row[c]) WriteCsvField(out_, *row[c]);
    }
    out_ << '\n';
  }
  void End() override { out_.flush(); }

 private:
  std::ostream& out_;
};

class JsonRowWriter final : public RowWriter {
 public:
  explicit JsonRowWriter(std::ostream& out) : out_(out) {}
  void Begin(const ResultSet& header) override {
    kinds_.clear();
    keys_.clear();
    for (size_t c = 0; c < header.columns.size(); ++c) {
      keys_.push_back(JsonString(header.columns[c]));
      kinds_.push_back(KindOf(header, c));
    }
    out_ << '[';
  }
  void Add(Row row) override {
    out_ << (rows_++ ? ",\n  {" : "\n  {");
    for (size_t c = 0; c < row.size() && c < keys_.size(); ++c) {
      if (c) out_ << ", ";
      out_ << keys_[c] << ": ";
      const ColumnKind kind = kinds_[c];
      if (!row[c]) {
        out_ << "null";
      } else if (kind == ColumnKind::kNumber && IsJsonNumber(*row[c])) {
        out_ << *row[c];
      } else if (kind == ColumnKind::kBoolean && (*row[c] == "true" || *row[c] == "false")) {
        out_ << *row[c];
      } else {
        out_ << JsonString(*row[c]);
      }
    }
    out_ << '}';
  }
  void End() override {
    out_ << (rows_ == 0 ? "]\n" : "\n]\n");
    out_.flush();
  }

 private:
  std::ostream& out_;
  std::vector<std::string> keys_;
  std::vector<ColumnKind> kinds_;
  size_t rows_ = 0;
};

class TableRowWriter final : public RowWriter {
 public:
  TableRowWriter(std::ostream& out, int max_width, size_t cap)
      : out_(out), max_width_(max_width), cap_(cap) {}
  void Begin(const ResultSet& header) override {
    header_ = header;
    header_.rows.clear();
  }
  void Add(Row row) override {
    if (header_.rows.size() < cap_) {
      header_.rows.push_back(std::move(row));
    } else {
      ++left_out_;
    }
  }
  void End() override {
    WriteTable(out_, header_, max_width_);
    if (left_out_ > 0) {
      out_ << "(" << left_out_ << " more row" << (left_out_ == 1 ? "" : "s")
           << " not shown: a table shows the first " << cap_
           << "; --format csv or json prints every row)\n";
    }
    out_.flush();
  }

 private:
  std::ostream& out_;
  int max_width_;
  size_t cap_;
  ResultSet header_;
  size_t left_out_ = 0;
};

void WriteThrough(RowWriter& writer, const ResultSet& rs) {
  writer.Begin(rs);
  for (const Row& row : rs.rows) writer.Add(row);
  writer.End();
}

}  // namespace

std::unique_ptr<RowWriter> MakeRowWriter(std::ostream& out, OutputFormat format, int max_width,
                                         size_t table_row_cap) {
  switch (format) {
    case OutputFormat::kCsv:
      return std::make_unique<CsvRowWriter>(out);
    case OutputFormat::kJson:
      return std::make_unique<JsonRowWriter>(out);
    case OutputFormat::kTable:
      break;
  }
  return std::make_unique<TableRowWriter>(out, max_width, table_row_cap);
}

void WriteCsv(std::ostream& out, const ResultSet& rs) {
  CsvRowWriter writer(out);
  WriteThrough(writer, rs);
}

void WriteJson(std::ostream& out, const ResultSet& rs) {
  JsonRowWriter writer(out);
  WriteThrough(writer, rs);
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
    std::vector<int> rank(ncol);
    for (size_t c = 0; c < ncol; ++c) rank[c] = CutRank(KindOf(rs, c), cells, c);
    // Free text first, then other text: narrow the widest column of the rank one step at a time,
    // so that short columns stay whole. Names, times and numbers are never cut.
    for (int r = 0; r < 2 && total() > budget; ++r) {
      while (total() > budget) {
        size_t widest = ncol;
        for (size_t c = 0; c < ncol; ++c) {
          if (rank[c] == r && width[c] > static_cast<size_t>(kMinColumnWidth) &&
              (widest == ncol || width[c] > width[widest])) {
            widest = c;
          }
        }
        if (widest == ncol) break;
        --width[widest];
      }
    }
  }

  auto write_line = [&](const std::vector<std::string>& line, bool header_line) {
    std::string text;
    for (size_t c = 0; c < ncol; ++c) {
      std::string cell = Fit(line[c], width[c]);
      size_t pad = width[c] - CodePoints(cell);
      if (c) text += "  ";
      if (IsRightAligned(KindOf(rs, c)) && !header_line) {
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
