#include "duck/sql_text.hpp"

namespace predlake::duck {

Result<std::string_view> FindSql(const SqlFiles& files, std::string_view name) {
  for (const auto& [stem, text] : files) {
    if (stem == name) return text;
  }
  return Status::Internal("no embedded SQL file " + std::string(name) + ".sql");
}

Result<std::string> FillSql(std::string_view text, const std::vector<SqlValue>& values,
                            std::string_view context) {
  std::string out;
  out.reserve(text.size());
  size_t pos = 0;
  while (true) {
    const size_t open = text.find("${", pos);
    if (open == std::string_view::npos) break;
    const size_t close = text.find('}', open);
    if (close == std::string_view::npos) {
      return Status::Internal(std::string(context) + ": an unclosed ${ in its SQL");
    }
    const std::string_view name = text.substr(open + 2, close - open - 2);
    const SqlValue* value = nullptr;
    for (const SqlValue& v : values) {
      if (v.name == name) value = &v;
    }
    if (value == nullptr) {
      return Status::Internal(std::string(context) + ": no value for ${" + std::string(name) +
                              "} in its SQL");
    }
    out.append(text.substr(pos, open - pos)).append(value->text);
    pos = close + 1;
  }
  out.append(text.substr(pos));
  return out;
}

Result<std::string> EmbeddedSqlText(const SqlFiles& files, std::string_view name,
                                    const std::vector<SqlValue>& values) {
  ASSIGN_OR_RETURN(std::string_view text, FindSql(files, name));
  return FillSql(text, values, std::string(name) + ".sql");
}

}  // namespace predlake::duck
