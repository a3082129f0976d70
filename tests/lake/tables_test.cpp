#include "lake/tables.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "lake/lake.hpp"

namespace predlake::lake {
namespace {

// The data_type DuckDB reports in duckdb_columns() for a column of `type`: the DDL's type name
// without spaces ("DECIMAL(38,18)").
std::string DuckTypeName(ColumnType type) {
  std::string name(SqlTypeName(type));
  std::erase(name, ' ');
  return name;
}

class TablesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto lake = Lake::OpenEmpty("unused", &clock_);
    ASSERT_TRUE(lake.ok()) << lake.status().message();
    lake_ = std::move(lake).value();
  }

  // Every row of `sql`, each value rendered as text ("" for NULL).
  std::vector<std::vector<std::string>> Rows(const std::string& sql) {
    auto result = lake_->conn().Query(sql, "test query");
    EXPECT_TRUE(result.ok()) << result.status().message();
    std::vector<std::vector<std::string>> rows;
    if (!result.ok()) return rows;
    const size_t columns = result->column_count();
    while (auto chunk = result->NextChunk()) {
      for (size_t r = 0; r < chunk->size(); ++r) {
        std::vector<std::string> row;
        for (size_t c = 0; c < columns; ++c) row.push_back(chunk->GetText(c, r).value_or(""));
        rows.push_back(std::move(row));
      }
    }
    return rows;
  }

  FixedClock clock_{1'721'952'000'000};
  std::unique_ptr<Lake> lake_;
};

TEST_F(TablesTest, TheSchemaMatchesTheDefinitionColumnForColumn) {
  for (const TableDef* table : kSourceTableDefs) {
    SCOPED_TRACE(std::string(table->name));
    std::vector<std::vector<std::string>> want;
    for (size_t i = 0; i < table->columns.size(); ++i) {
      const ColumnDef& c = table->columns[i];
      want.push_back(
          {std::string(c.name), DuckTypeName(c.type), table->Nullable(i) ? "true" : "false"});
    }
    auto got = Rows(
        "SELECT column_name, data_type, is_nullable::VARCHAR FROM duckdb_columns() WHERE "
        "database_name = current_database() AND table_name = '" +
        std::string(table->name) + "' ORDER BY column_index");
    EXPECT_EQ(got, want);

    auto keys = Rows(
        "SELECT array_to_string(constraint_column_names, ',') FROM duckdb_constraints() WHERE "
        "database_name = current_database() AND table_name = '" +
        std::string(table->name) + "' AND constraint_type = 'PRIMARY KEY'");
    // Only the (ID, timestamp) key is an index: the others would stop DuckDB from merging the
    // row groups appends leave (CreateTableSql).
    std::string key(table->KeySql());
    std::erase(key, ' ');
    EXPECT_EQ(keys, table->keyed_by_timestamp ? std::vector<std::vector<std::string>>{{key}}
                                              : std::vector<std::vector<std::string>>{});
  }
}

TEST_F(TablesTest, TheSchemaCreatesExactlyTheDefinedTables) {
  std::set<std::string> want;
  for (const TableDef* table : kSourceTableDefs) want.emplace(table->name);
  for (std::string_view name : kBuiltTables) want.emplace(name);
  std::set<std::string> got;
  for (const auto& row : Rows("SELECT table_name FROM duckdb_tables() WHERE database_name = "
                              "current_database()")) {
    // The bookkeeping tables are known by their prefix; only the ones defined here count.
    if (row[0].starts_with(kBookkeepingPrefix) && !want.count(row[0])) continue;
    got.insert(row[0]);
  }
  EXPECT_EQ(got, want);
  EXPECT_FALSE(std::any_of(want.begin(), want.end(), [](const std::string& name) {
    return name.starts_with(kEtlStagingPrefix) || name.starts_with(kRawStagingPrefix);
  }));
}

TEST(TablesDefinitionTest, RawTableNamesFollowTheDefinitions) {
  ASSERT_EQ(kRawTables.size(), kRawTableDefs.size());
  for (size_t i = 0; i < kRawTables.size(); ++i) {
    EXPECT_EQ(kRawTables[i], kRawTableDefs[i].name);
    EXPECT_EQ(FindRawTable(kRawTables[i]), &kRawTableDefs[i]);
  }
  EXPECT_EQ(FindRawTable(kContractsTable.name), nullptr);
  EXPECT_EQ(RawTableList(),
            "pdr_predictions, pdr_truevals, pdr_payouts, pdr_subscriptions, pdr_slots");
  EXPECT_EQ(&kPayoutsTable, FindRawTable("pdr_payouts"));
  EXPECT_EQ(Col(kPayoutsTable, "user"), 2u);
}

TEST(TablesDefinitionTest, TheGeneratedDdlSpellsKeyAndTimestamp) {
  EXPECT_EQ(CreateTableSql(kSlotsTable),
            "CREATE TABLE IF NOT EXISTS pdr_slots (\n"
            "  ID VARCHAR NOT NULL,\n"
            "  timestamp BIGINT NOT NULL,\n"
            "  slot BIGINT,\n"
            "  truevalue BOOLEAN,\n"
            "  roundSumStakesUp DECIMAL(38, 18),\n"
            "  roundSumStakes DECIMAL(38, 18),\n"
            "  status VARCHAR\n"
            ");\n");
  EXPECT_NE(CreateTableSql(kPredictionVersionsTable).find("PRIMARY KEY (ID, timestamp)"),
            std::string::npos);
}

TEST(TablesDefinitionTest, TheIdRangeColumnIsTheOneTheIdHolds) {
  EXPECT_EQ(IdRangeColumn(kPredictionsTable), Col(kPredictionsTable, "slot"));
  EXPECT_EQ(IdRangeColumn(kPayoutsTable), Col(kPayoutsTable, "slot"));
  EXPECT_EQ(IdRangeColumn(kTruevalsTable), Col(kTruevalsTable, "slot"));
  EXPECT_EQ(IdRangeColumn(kSlotsTable), Col(kSlotsTable, "slot"));
  EXPECT_EQ(IdRangeColumn(kOhlcvTable), Col(kOhlcvTable, "timestamp"));
  EXPECT_EQ(IdRangeColumn(kSubscriptionsTable), Col(kSubscriptionsTable, "timestamp"));
  EXPECT_EQ(IdRangeColumn(kContractsTable), kNoColumn);
}

}  // namespace
}  // namespace predlake::lake
