#include "duck/sql_text.hpp"

namespace predlake::duck {

Result<std::string_view> FindSql(const SqlFiles& files, std::string_view name) {
  if (auto text = FindSqlText(files, name)) return *text;
  return Status::Internal("no embedded SQL file " + std::string(name) + ".sql");
}

Result<std::string> FillSql(std::string_view text, const std::vector<SqlValue>& values,
                            std::string_view context) {
  std::string error;
  std::optional<std::string> out = SubstituteSql(
      text,
      [&](std::string_view name) -> std::optional<std::string_view> {
        const SqlValue* found = nullptr;
        for (const SqlValue& v : values) {
          if (v.name == name) found = &v;
        }
        if (found == nullptr) return std::nullopt;
        return std::string_view(found->text);
      },
      &error);
  if (!out) return Status::Internal(std::string(context) + ": " + error + " in its SQL");
  return std::move(*out);
}

Result<std::string> EmbeddedSqlText(const SqlFiles& files, std::string_view name,
                                    const std::vector<SqlValue>& values) {
  ASSIGN_OR_RETURN(std::string_view text, FindSql(files, name));
  return FillSql(text, values, std::string(name) + ".sql");
}

}  // namespace predlake::duck
