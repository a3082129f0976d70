#include "ops/query.hpp"

#include <cctype>

#include "ops/lake_info.hpp"

namespace predlake::ops {

namespace {

constexpr std::string_view kStep = "query";

Status Clean(const Status& st) {
  if (st.ok() || st.code() != StatusCode::kData) return st;
  std::string message = OneLine(st.message());
  // The duck layer prefixes the step; keep exactly one "query: ".
  if (message.rfind("query: ", 0) == 0) message = message.substr(7);
  // What the sealed database refuses is the user's to change (a flag), not bad data: exit 2, with
  // DuckDB's advice to install or enable things cut off.
  for (std::string_view advice : {" Please try installing", " Alternatively, consider"}) {
    size_t at = message.find(advice);
    if (at != std::string::npos) message.erase(at);
  }
  while (!message.empty() && message.back() == ' ') message.pop_back();
  const bool network = message.find("://") != std::string::npos;
  if (network && (message.find("Permission Error: Cannot access") != std::string::npos ||
                  message.find("Missing Extension Error") != std::string::npos)) {
    return Status::Usage("query: " + message + " (query never reaches the network)");
  }
  if (message.find("Permission Error: Cannot access") != std::string::npos) {
    return Status::Usage("query: " + message +
                         " (query reads only the lake; --allow-files lets it read other files)");
  }
  if (message.find("Missing Extension Error") != std::string::npos ||
      message.find("but it exists in the") != std::string::npos) {
    return Status::Usage("query: " + message +
                         " (query never installs or loads an extension, nor reaches the network)");
  }
  return Status::Data("query: " + message);
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

bool IsRightAlignedKind(ColumnKind kind) {
  return kind == ColumnKind::kNumber || kind == ColumnKind::kDecimal;
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

// Statements that act on files while DuckDB merely binds them (EXPORT DATABASE creates its folder,
// IMPORT DATABASE reads the statements of one while being parsed) or whose binding would fail on
// the seal with a misleading message (COPY), refused on their first word, before binding.
Status RefuseActingAtBind(std::string_view sql) {
  size_t i = SkipBlank(sql, 0);
  for (std::string_view word : {"EXPORT", "IMPORT", "COPY"}) {
    if (StartsWithWord(sql, i, word)) return Refuse(std::string(word));
  }
  return Status::Ok();
}

ColumnKind KindOfType(duck::Type type) {
  switch (type) {
    case duck::Type::kInteger:
    case duck::Type::kDouble:
      return ColumnKind::kNumber;
    case duck::Type::kDecimal:
      return ColumnKind::kDecimal;
    case duck::Type::kBoolean:
      return ColumnKind::kBoolean;
    case duck::Type::kTimestamp:
      return ColumnKind::kTime;
    case duck::Type::kVarchar:
    case duck::Type::kOther:
      break;
  }
  return ColumnKind::kText;
}

ResultSet HeaderOf(const std::vector<std::string>& names, const std::vector<duck::Type>& types) {
  ResultSet header;
  header.columns = names;
  for (duck::Type t : types) {
    header.kinds.push_back(KindOfType(t));
    header.numeric.push_back(IsRightAlignedKind(header.kinds.back()));
  }
  return header;
}

// Collects what a RowWriter is given, for RunReadOnlyQuery.
class CollectingWriter final : public RowWriter {
 public:
  explicit CollectingWriter(ResultSet& rs) : rs_(rs) {}
  void Begin(const ResultSet& header) override {
    rs_ = header;
    rs_.rows.clear();
  }
  void Add(Row row) override { rs_.rows.push_back(std::move(row)); }
  void End() override {}

 private:
  ResultSet& rs_;
};

}  // namespace

Result<duck::StatementInfo> CheckReadOnly(duck::Connection& conn, std::string_view sql) {
  // Screened and counted before anything is bound: binding (for IMPORT even parsing) is already
  // too late for some.
  RETURN_IF_ERROR(RefuseActingAtBind(sql));
  RETURN_IF_ERROR(RefuseActingAtBind(ExplainedStatement(sql)));
  auto count = conn.CountStatements(sql, kStep);
  if (!count.ok()) return Clean(count.status());
  if (*count == 0) return Status::Usage("query: no SQL statement given");
  if (*count > 1) {
    return Status::Usage("query takes one SQL statement; got " + std::to_string(*count));
  }
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

Status StreamReadOnlyQuery(duck::Connection& conn, std::string_view sql, RowWriter& out) {
  ASSIGN_OR_RETURN(duck::StatementInfo info, CheckReadOnly(conn, sql));
  if (info.kind == "SELECT") {
    // Rendering through DuckDB's own VARCHAR cast gives every type its exact text. Statements
    // that cannot sit in a subquery (PRAGMA forms) fall through to direct reading below; the
    // wrapped text is checked again so that it cannot be anything but one SELECT.
    std::string stripped = StripTrailing(sql);
    std::string wrapped =
        "SELECT CAST(COLUMNS(*) AS VARCHAR) FROM (\n" + stripped + "\n) AS predlake_text";
    auto wrapped_info = conn.Inspect(wrapped, kStep);
    if (wrapped_info.ok() && wrapped_info->size() == 1 && (*wrapped_info)[0].kind == "SELECT" &&
        (*wrapped_info)[0].column_names.size() == info.column_names.size()) {
      auto result = conn.QueryStreaming(wrapped, kStep);
      if (!result.ok()) return Clean(result.status());
      out.Begin(HeaderOf(info.column_names, info.column_types));
      const size_t columns = result->column_count();
      while (auto chunk = result->NextChunk()) {
        for (size_t r = 0; r < chunk->size(); ++r) {
          Row row;
          row.reserve(columns);
          for (size_t c = 0; c < columns; ++c) {
            if (chunk->IsNull(c, r)) {
              row.emplace_back(std::nullopt);
            } else {
              row.emplace_back(std::string(chunk->GetString(c, r)));
            }
          }
          out.Add(std::move(row));
        }
      }
      RETURN_IF_ERROR(Clean(result->error()));
      out.End();
      return Status::Ok();
    }
  }
  auto result = conn.Query(sql, kStep);
  if (!result.ok()) return Clean(result.status());
  out.Begin(HeaderOf(result->column_names(), result->column_types()));
  for (Row& row : result->ToText()) out.Add(std::move(row));
  out.End();
  return Status::Ok();
}

Result<ResultSet> RunReadOnlyQuery(duck::Connection& conn, std::string_view sql) {
  ResultSet rs;
  CollectingWriter writer(rs);
  RETURN_IF_ERROR(StreamReadOnlyQuery(conn, sql, writer));
  return rs;
}

}  // namespace predlake::ops
