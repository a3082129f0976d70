#include <gtest/gtest.h>

#include "serve/embedded_sql.hpp"
#include "serve/pages.hpp"

namespace predlake::serve {
namespace {

// Every query of src/serve/sql fills all its placeholders (the parts, the sort); the parts are
// only ever inserted into another file.
TEST(ServeSql, EveryQueryFillsItsPlaceholders) {
  size_t queries = 0;
  for (const auto& [name, text] : EmbeddedSql()) {
    if (name.rfind("part_", 0) == 0) continue;
    Result<std::string> sql = PageSql(name, "\"user\" DESC NULLS LAST", "DESC");
    ASSERT_TRUE(sql.ok()) << sql.status().message();
    EXPECT_EQ(sql->find("${"), std::string::npos) << name;
    ++queries;
  }
  EXPECT_GE(queries, 20u);
}

}  // namespace
}  // namespace predlake::serve
