#include "common/embedded_sql.hpp"

#include <cstdio>
#include <cstdlib>

namespace predlake {

namespace {

[[noreturn]] void SqlBuildError(const std::string& what) {
  std::fprintf(stderr, "predlake: embedded SQL: %s\n", what.c_str());
  std::abort();
}

}  // namespace

std::optional<std::string_view> FindSqlText(const SqlFiles& files, std::string_view stem) {
  for (const auto& [name, text] : files) {
    if (name == stem) return text;
  }
  return std::nullopt;
}

std::string_view SqlText(const SqlFiles& files, std::string_view stem) {
  if (auto text = FindSqlText(files, stem)) return *text;
  SqlBuildError("no file " + std::string(stem) + ".sql");
}

std::optional<std::string> SubstituteSql(
    std::string_view text,
    const std::function<std::optional<std::string_view>(std::string_view name)>& value_of,
    std::string* error) {
  std::string out;
  out.reserve(text.size());
  size_t pos = 0;
  while (true) {
    const size_t open = text.find("${", pos);
    if (open == std::string_view::npos) break;
    const size_t close = text.find('}', open);
    if (close == std::string_view::npos) {
      *error = "an unclosed ${";
      return std::nullopt;
    }
    const std::string_view name = text.substr(open + 2, close - open - 2);
    const std::optional<std::string_view> value = value_of(name);
    if (!value) {
      *error = "no value for ${" + std::string(name) + "}";
      return std::nullopt;
    }
    out.append(text.substr(pos, open - pos)).append(*value);
    pos = close + 1;
  }
  out.append(text.substr(pos));
  return out;
}

std::string FillSql(std::string_view text,
                    std::initializer_list<std::pair<std::string_view, std::string_view>> values) {
  std::vector<bool> used(values.size(), false);
  std::string error;
  std::optional<std::string> out = SubstituteSql(
      text,
      [&](std::string_view name) -> std::optional<std::string_view> {
        size_t i = 0;
        for (const auto& [key, value] : values) {
          if (key == name) {
            used[i] = true;
            return value;
          }
          ++i;
        }
        return std::nullopt;
      },
      &error);
  if (!out) SqlBuildError(error + " in " + std::string(text));
  size_t i = 0;
  for (const auto& [key, value] : values) {
    if (!used[i++]) {
      SqlBuildError("a value for ${" + std::string(key) + "}, which is not in " +
                    std::string(text));
    }
  }
  return *out;
}

std::string FillSql(const SqlFiles& files, std::string_view stem,
                    std::initializer_list<std::pair<std::string_view, std::string_view>> values) {
  return FillSql(SqlText(files, stem), values);
}

}  // namespace predlake
