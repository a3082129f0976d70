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

std::string_view SqlText(const SqlFiles& files, std::string_view stem) {
  for (const auto& [name, text] : files) {
    if (name == stem) return text;
  }
  SqlBuildError("no file " + std::string(stem) + ".sql");
}

std::string FillSql(std::string_view text,
                    std::initializer_list<std::pair<std::string_view, std::string_view>> values) {
  std::vector<bool> used(values.size(), false);
  std::string out;
  out.reserve(text.size());
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t open = text.find("${", pos);
    if (open == std::string_view::npos) {
      out.append(text.substr(pos));
      break;
    }
    const size_t close = text.find('}', open);
    if (close == std::string_view::npos) SqlBuildError("an unclosed ${ in " + std::string(text));
    out.append(text.substr(pos, open - pos));
    const std::string_view name = text.substr(open + 2, close - open - 2);
    size_t i = 0;
    for (const auto& [key, value] : values) {
      if (key == name) break;
      ++i;
    }
    if (i == values.size()) {
      SqlBuildError("no value for ${" + std::string(name) + "} in " + std::string(text));
    }
    out.append((values.begin() + i)->second);
    used[i] = true;
    pos = close + 1;
  }
  size_t i = 0;
  for (const auto& [key, value] : values) {
    if (!used[i++])
      SqlBuildError("a value for ${" + std::string(key) + "}, which is not in " +
                    std::string(text));
  }
  return out;
}

std::string FillSql(const SqlFiles& files, std::string_view stem,
                    std::initializer_list<std::pair<std::string_view, std::string_view>> values) {
  return FillSql(SqlText(files, stem), values);
}

}  // namespace predlake
