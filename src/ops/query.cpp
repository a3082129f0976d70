#include "ops/query.hpp"

#include <cctype>

#include "ops/lake_info.hpp"

namespace predlake::ops {

namespace {

constexpr std::string_view kStep = "query";

Status Clean(const Status& st) {
  if (st.ok() || st.code() != StatusCode::kData) return st;
  std::string message = st.message();
  // The duck layer prefixes the step; keep exactly one "query: ".
  if (message.rfind("query: ", 0) == 0) message = message.substr(7);
  return Status::Data("query: " + OneLine(message));
}

bool IsSpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

// Skips white space and SQL comments from `i`.
size_t SkipBlank(std::string_view s, size_t i) {
  while (i < s.size()) {
    if (IsSpace(s[i])) {
      ++i;
    } else if (s.substr(i, 2) == "--") {
      while (i < s.size() && s[i] != '\n') ++i;
    } else if (s.substr(i, 2) == "/*") {
      size_t end = s.find("*/", i + 2);
      i = end == std::string_view::npos ? s.size() : end + 2;
    } else {
      break;
    }
  }
  return i;
}

bool StartsWithWord(std::string_view s, size_t i, std::string_view word) {
  if (s.size() - i < word.size()) return false;
  for (size_t k = 0; k < word.size(); ++k) {
    if (std::toupper(static_cast<unsigned char>(s[i + k])) != word[k]) return false;
  }
  size_t end = i + word.size();
  return end == s.size() || !(std::isalnum(static_cast<unsigned char>(s[end])) || s[end] == '_');
}

// The statement an EXPLAIN wraps: the text after EXPLAIN, an optional ANALYZE/ANALYSE and an
// optional parenthesised option list. Empty when `sql` does not start with EXPLAIN.
std::string_view ExplainedStatement(std::string_view sql) {
  size_t i = SkipBlank(sql, 0);
  if (!StartsWithWord(sql, i, "EXPLAIN")) return {};
  i = SkipBlank(sql, i + 7);
  if (StartsWithWord(sql, i, "ANALYZE") || StartsWithWord(sql, i, "ANALYSE")) {
    i = SkipBlank(sql, i + 7);
  } else if (i < sql.size() && sql[i] == '(') {
    int depth = 0;
    for (; i < sql.size(); ++i) {
      if (sql[i] == '(') ++depth;
      if (sql[i] == ')' && --depth == 0) {
        ++i;
        break;
      }
    }
    i = SkipBlank(sql, i);
  }
  return sql.substr(i);
}

Status Refuse(const std::string& kind) {
  return Status::Usage("query is read-only: " + kind + " statements are refused");
}

// The text without trailing blanks and semicolons, so that it can sit inside a subquery.
std::string StripTrailing(std::string_view sql) {
  size_t end = sql.size();
  while (end > 0 && (IsSpace(sql[end - 1]) || sql[end - 1] == ';')) --end;
  return std::string(sql.substr(0, end));
}

}  // namespace

Result<duck::StatementInfo> CheckReadOnly(duck::Connection& conn, std::string_view sql) {
  auto inspected = conn.Inspect(sql, kStep);
  if (!inspected.ok()) return Clean(inspected.status());
  std::vector<duck::StatementInfo>& infos = *inspected;
  if (infos.empty()) return Status::Usage("query: no SQL statement given");
  for (const duck::StatementInfo& info : infos) {
    if (info.kind != "SELECT" && info.kind != "EXPLAIN") return Refuse(info.kind);
  }
  if (infos.size() > 1) {
    return Status::Usage("query takes one SQL statement; got " + std::to_string(infos.size()));
  }
  if (infos[0].kind == "EXPLAIN") {
    // EXPLAIN ANALYZE runs the statement it explains, so that statement must be a read too.
    std::string_view inner = ExplainedStatement(sql);
    auto inner_infos = conn.Inspect(inner, kStep);
    if (!inner_infos.ok()) return Clean(inner_infos.status());
    if (inner_infos->size() != 1) return Refuse("EXPLAIN");
    const std::string& kind = (*inner_infos)[0].kind;
    if (kind != "SELECT") return Refuse(kind);
  }
  return infos[0];
}

Result<ResultSet> RunReadOnlyQuery(duck::Connection& conn, std::string_view sql) {
  ASSIGN_OR_RETURN(duck::StatementInfo info, CheckReadOnly(conn, sql));
  if (info.kind == "SELECT") {
    // Rendering through DuckDB's own VARCHAR cast gives every type its exact text. Statements
    // that cannot sit in a subquery (PRAGMA forms) fall through to direct reading below; the
    // wrapped text is checked again so that it cannot be anything but one SELECT.
    std::string stripped = StripTrailing(sql);
    std::string wrapped = "SELECT * FROM (\n" + stripped + "\n)";
    auto wrapped_info = conn.Inspect(wrapped, kStep);
    if (wrapped_info.ok() && wrapped_info->size() == 1 && (*wrapped_info)[0].kind == "SELECT") {
      auto rs = QueryText(conn, stripped, kStep);
      if (!rs.ok()) return Clean(rs.status());
      return rs;
    }
  }
  auto result = conn.Query(sql, kStep);
  if (!result.ok()) return Clean(result.status());
  ResultSet rs;
  rs.columns = result->column_names();
  for (duck::Type t : result->column_types()) {
    rs.numeric.push_back(t == duck::Type::kInteger || t == duck::Type::kDecimal ||
                         t == duck::Type::kDouble);
  }
  rs.rows = result->ToText();
  return rs;
}

}  // namespace predlake::ops
