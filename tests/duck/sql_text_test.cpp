#include "duck/sql_text.hpp"

#include <gtest/gtest.h>

namespace predlake::duck {
namespace {

const SqlFiles kFiles = {{"count_rows", "SELECT count(*) FROM ${table} WHERE ${where}"},
                         {"plain", "SELECT 1"}};

TEST(SqlText, PlaceholdersAreFilledOnceEach) {
  auto sql = EmbeddedSqlText(kFiles, "count_rows",
                             {{"table", QuoteIdent("a\"b")}, {"where", "x = '${table}'"}});
  ASSERT_TRUE(sql.ok()) << sql.status().message();
  // A value is inserted as it is: a placeholder inside it stays text.
  EXPECT_EQ(*sql, "SELECT count(*) FROM \"a\"\"b\" WHERE x = '${table}'");
  auto plain = EmbeddedSqlText(kFiles, "plain");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(*plain, "SELECT 1");
}

TEST(SqlText, AMissingFileOrValueIsAnInternalErrorNamingIt) {
  auto none = EmbeddedSqlText(kFiles, "nope");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::kInternal);
  EXPECT_NE(none.status().message().find("nope.sql"), std::string::npos);
  auto unfilled = EmbeddedSqlText(kFiles, "count_rows", {{"table", "t"}});
  ASSERT_FALSE(unfilled.ok());
  EXPECT_EQ(unfilled.status().code(), StatusCode::kInternal);
  EXPECT_NE(unfilled.status().message().find("count_rows.sql: no value for ${where}"),
            std::string::npos);
  auto unclosed = FillSql("SELECT ${x", {{"x", "1"}}, "q");
  EXPECT_FALSE(unclosed.ok());
}

}  // namespace
}  // namespace predlake::duck
