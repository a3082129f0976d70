#include <gtest/gtest.h>

#include "duck/sql_text.hpp"
#include "raw/embedded_sql.hpp"

namespace predlake::raw {
namespace {

// Every statement of src/raw/sql fills with the values raw/store.cpp gives (a misspelt placeholder
// would make InsertNewIdsSql and UpdateStoredIdsSql an empty statement).
TEST(StoreSql, EveryFileFillsWithTheStoresValues) {
  std::vector<duck::SqlValue> values;
  for (std::string_view name :
       {"stage", "columns", "rows", "table", "col", "key", "stored_range", "order", "set_columns",
        "changed", "ids", "versions", "staged_values"}) {
    values.push_back({name, "x"});
  }
  size_t files = 0;
  for (const auto& [name, text] : EmbeddedSql()) {
    Result<std::string> sql = duck::FillSql(text, values, name);
    EXPECT_TRUE(sql.ok()) << sql.status().message();
    ++files;
  }
  EXPECT_GE(files, 10u);
}

}  // namespace
}  // namespace predlake::raw
