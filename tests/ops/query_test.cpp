#include "ops/query.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "ops/open.hpp"
#include "test_lake.hpp"

namespace predlake::ops {
namespace {

using testing::TempDir;

class QueryTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    testing::MakeFixtureLake(dir_->path(), /*build=*/false);
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  void SetUp() override {
    auto lake = OpenForRead(dir_->path());
    ASSERT_TRUE(lake.ok()) << lake.status().message();
    lake_ = std::move(lake).value();
  }
  Result<ResultSet> Run(const std::string& sql) { return RunReadOnlyQuery(lake_->conn(), sql); }

  static TempDir* dir_;
  std::unique_ptr<lake::Lake> lake_;
};

TempDir* QueryTest::dir_ = nullptr;

TEST_F(QueryTest, ValuesAreRenderedExactly) {
  auto rs =
      Run("SELECT 1.50::DECIMAL(38, 18) AS d, NULL AS n, '' AS e, 0.1::DOUBLE AS f, [1, 2] AS l, "
          "DATE '2024-07-26' AS dt, TIMESTAMP '2024-07-26 01:02:03' AS ts, 42 AS i, true AS b, "
          "12345678901234567890123::HUGEINT AS h");
  ASSERT_TRUE(rs.ok()) << rs.status().message();
  EXPECT_EQ(rs->columns,
            (std::vector<std::string>{"d", "n", "e", "f", "l", "dt", "ts", "i", "b", "h"}));
  ASSERT_EQ(rs->rows.size(), 1u);
  const auto& row = rs->rows[0];
  EXPECT_EQ(row[0], "1.500000000000000000");
  EXPECT_EQ(row[1], std::nullopt);
  EXPECT_EQ(row[2], "");
  EXPECT_EQ(row[3], "0.1");
  EXPECT_EQ(row[4], "[1, 2]");
  EXPECT_EQ(row[5], "2024-07-26");
  EXPECT_EQ(row[6], "2024-07-26 01:02:03");
  EXPECT_EQ(row[7], "42");
  EXPECT_EQ(row[8], "true");
  EXPECT_EQ(row[9], "12345678901234567890123");
  // A bare NULL is typed INTEGER by DuckDB.
  EXPECT_EQ(rs->numeric,
            (std::vector<bool>{true, true, false, true, false, false, false, true, false, false}));
}

TEST_F(QueryTest, ReadsTheLakeAndKeepsOrderAndDuplicateNames) {
  auto rs = Run(
      "SELECT ID AS x, stake AS x FROM pdr_payouts ORDER BY timestamp DESC, ID DESC LIMIT 2;  ");
  ASSERT_TRUE(rs.ok()) << rs.status().message();
  EXPECT_EQ(rs->columns, (std::vector<std::string>{"x", "x"}));
  ASSERT_EQ(rs->rows.size(), 2u);
  EXPECT_GT(*rs->rows[0][0], *rs->rows[1][0]);
  // Amounts are DECIMAL(38, 18) and shown with their scale.
  EXPECT_EQ(rs->rows[0][1]->size() - rs->rows[0][1]->find('.'), 19u);

  auto count = Run("FROM pdr_predictions SELECT count(*) AS n -- trailing comment");
  ASSERT_TRUE(count.ok()) << count.status().message();
  EXPECT_EQ(count->rows[0][0], "2369");
}

TEST_F(QueryTest, ShowDescribePragmaAndExplainWork) {
  auto show = Run("SHOW TABLES");
  ASSERT_TRUE(show.ok()) << show.status().message();
  EXPECT_FALSE(show->rows.empty());
  auto describe = Run("DESCRIBE pdr_predictions");
  ASSERT_TRUE(describe.ok()) << describe.status().message();
  EXPECT_EQ(describe->rows.size(), 12u);
  auto pragma = Run("PRAGMA table_info('pdr_slots')");
  ASSERT_TRUE(pragma.ok()) << pragma.status().message();
  EXPECT_EQ(pragma->rows.size(), 7u);
  EXPECT_EQ(pragma->rows[0][1], "ID");
  auto explain = Run("EXPLAIN SELECT count(*) FROM pdr_truevals");
  ASSERT_TRUE(explain.ok()) << explain.status().message();
  EXPECT_FALSE(explain->rows.empty());
  auto analyze = Run("EXPLAIN ANALYZE SELECT count(*) FROM pdr_truevals");
  ASSERT_TRUE(analyze.ok()) << analyze.status().message();
}

TEST_F(QueryTest, WritesAreRefusedBeforeTheyRun) {
  // A folder left by an older build would hide an EXPORT that creates it.
  std::filesystem::remove_all("/tmp/predlake_query_test_export");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"INSERT INTO pdr_slots (ID, timestamp) VALUES ('x', 1)", "INSERT"},
      {"UPDATE pdr_slots SET slot = 1", "UPDATE"},
      {"DELETE FROM pdr_slots", "DELETE"},
      {"CREATE TABLE t (a INTEGER)", "CREATE"},
      {"CREATE TEMP TABLE t AS SELECT 1", "CREATE"},
      {"DROP TABLE pdr_slots", "DROP"},
      {"ALTER TABLE pdr_slots ADD COLUMN z INTEGER", "ALTER"},
      {"ATTACH '/tmp/predlake_query_test_other.duckdb' AS other", "ATTACH"},
      {"COPY pdr_slots TO '/tmp/predlake_query_test.csv'", "COPY"},
      {"EXPORT DATABASE '/tmp/predlake_query_test_export'", "EXPORT"},
      {"SET threads = 1", "SET"},
      {"CHECKPOINT", "CALL"},
      {"PRAGMA enable_profiling", "PRAGMA"},
      {"BEGIN TRANSACTION", "TRANSACTION"},
      {"LOAD json", "LOAD"},
      {"EXPLAIN ANALYZE DELETE FROM pdr_slots", "DELETE"},
      {"EXPLAIN EXPORT DATABASE '/tmp/predlake_query_test_export'", "EXPORT"},
      {"IMPORT DATABASE '/tmp/predlake_query_test_export'", "IMPORT"},
  };
  for (const auto& [sql, kind] : cases) {
    auto rs = Run(sql);
    ASSERT_FALSE(rs.ok()) << sql;
    EXPECT_EQ(rs.status().code(), StatusCode::kUsage) << sql;
    EXPECT_EQ(rs.status().message(), "query is read-only: " + kind + " statements are refused")
        << sql;
  }
  EXPECT_FALSE(std::filesystem::exists("/tmp/predlake_query_test.csv"));
  EXPECT_FALSE(std::filesystem::exists("/tmp/predlake_query_test_other.duckdb"));
  EXPECT_FALSE(std::filesystem::exists("/tmp/predlake_query_test_export"));
  // Several statements are refused before any is bound, whatever they are.
  auto two = Run("SELECT 1; DELETE FROM pdr_slots");
  ASSERT_FALSE(two.ok());
  EXPECT_EQ(two.status().message(), "query takes one SQL statement; got 2");
}

TEST(Query, WritesAreRefusedEvenOnAWritableConnection) {
  TempDir dir;
  auto lake = testing::OpenTestLake(dir.path());
  ASSERT_NE(lake, nullptr);
  testing::Exec(*lake, "INSERT INTO pdr_slots (ID, timestamp) VALUES ('a', 1)");
  auto rs = RunReadOnlyQuery(lake->conn(), "DELETE FROM pdr_slots");
  ASSERT_FALSE(rs.ok());
  EXPECT_EQ(rs.status().code(), StatusCode::kUsage);
  auto count = lake->conn().QueryInt("SELECT count(*) FROM pdr_slots", "count");
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(count->value_or(0), 1);
}

TEST_F(QueryTest, BadInputGivesOneReadableLine) {
  auto syntax = Run("SELEC 1");
  ASSERT_FALSE(syntax.ok());
  EXPECT_EQ(syntax.status().code(), StatusCode::kData);
  EXPECT_EQ(syntax.status().message(), "query: Parser Error: syntax error at or near \"SELEC\"");

  auto unknown = Run("SELECT * FROM no_such_table");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), StatusCode::kData);
  EXPECT_EQ(unknown.status().message().rfind(
                "query: Catalog Error: Table with name no_such_table does not exist!", 0),
            0u)
      << unknown.status().message();
  EXPECT_EQ(unknown.status().message().find('\n'), std::string::npos);
  EXPECT_EQ(unknown.status().message().find("LINE 1"), std::string::npos);

  auto column = Run("SELECT nope FROM pdr_slots");
  ASSERT_FALSE(column.ok());
  EXPECT_EQ(column.status().code(), StatusCode::kData);

  auto runtime = Run("SELECT CAST('abc' AS INTEGER)");
  ASSERT_FALSE(runtime.ok());
  EXPECT_EQ(runtime.status().code(), StatusCode::kData);
  EXPECT_EQ(runtime.status().message().rfind("query: Conversion Error", 0), 0u)
      << runtime.status().message();

  auto empty = Run("  ;  ");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().code(), StatusCode::kUsage);

  auto two = Run("SELECT 1; SELECT 2");
  ASSERT_FALSE(two.ok());
  EXPECT_EQ(two.status().code(), StatusCode::kUsage);
  EXPECT_EQ(two.status().message(), "query takes one SQL statement; got 2");
}

}  // namespace
}  // namespace predlake::ops
