#include "ops/describe.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "ops/open.hpp"
#include "test_lake.hpp"

namespace predlake::ops {
namespace {

using testing::kFixtureEndMs;
using testing::kFixtureStartMs;
using testing::TempDir;

Description DescribeDir(const std::string& dir) {
  auto lake = OpenForRead(dir);
  EXPECT_TRUE(lake.ok()) << lake.status().message();
  if (!lake.ok()) return {};
  auto d = Describe(**lake);
  EXPECT_TRUE(d.ok()) << d.status().message();
  return d.ok() ? std::move(d).value() : Description{};
}

const TableSummary* Table(const Description& d, const std::string& name) {
  for (const TableSummary& t : d.tables) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

TEST(Describe, NewLakeListsEveryTableWithZeroRows) {
  TempDir dir;
  { ASSERT_NE(testing::OpenTestLake(dir.path()), nullptr); }
  Description d = DescribeDir(dir.path());
  std::vector<std::string> names;
  for (const TableSummary& t : d.tables) {
    names.push_back(t.name);
    EXPECT_EQ(t.rows, 0) << t.name;
    EXPECT_FALSE(t.first_ms.has_value()) << t.name;
  }
  EXPECT_EQ(names,
            (std::vector<std::string>{
                "pdr_predictions", "pdr_truevals", "pdr_payouts", "pdr_subscriptions", "pdr_slots",
                "pdr_ohlcv", "pdr_contracts", "bronze_pdr_predictions", "bronze_pdr_slots",
                "gold_feed_daily", "gold_feed_sales_daily", "gold_predictoor_daily"}));
  ASSERT_EQ(d.watermarks.size(), 5u);
  for (const WatermarkSummary& w : d.watermarks) EXPECT_FALSE(w.mark.has_value());
  EXPECT_FALSE(d.checkpoint.has_value());
  EXPECT_FALSE(d.frontier.frontier_ms.has_value());
  EXPECT_EQ(d.frontier.missing.front(), "pdr_predictions");
  EXPECT_TRUE(d.last_runs.empty());
  EXPECT_EQ(d.schema_version, lake::kSchemaVersion);

  std::ostringstream text;
  WriteDescriptionText(text, d, 0);
  EXPECT_NE(text.str().find("never fetched"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("Checkpoint       none"), std::string::npos);
  EXPECT_NE(text.str().find("Last runs\n(none)"), std::string::npos);
}

TEST(Describe, FixtureLakeRowsRangesWatermarksCheckpointFrontierRuns) {
  TempDir dir;
  testing::MakeFixtureLake(dir.path(), /*build=*/true);
  {
    // Hold the payouts back: the frontier must name them.
    auto lake = testing::OpenTestLake(dir.path());
    ASSERT_NE(lake, nullptr);
    ASSERT_TRUE(lake->SetWatermark("pdr_payouts", {kFixtureStartMs, kFixtureEndMs + 1000}, 0).ok());
    ASSERT_TRUE(
        lake->SetWatermark("pdr_truevals", {kFixtureStartMs, kFixtureEndMs + 2000}, 0).ok());
    ASSERT_TRUE(
        lake->SetWatermark("pdr_predictions", {kFixtureStartMs, kFixtureEndMs + 3000}, 0).ok());
    ASSERT_TRUE(
        lake->SetWatermark("pdr_subscriptions", {kFixtureStartMs, kFixtureEndMs + 4000}, 0).ok());
  }
  Description d = DescribeDir(dir.path());
  const TableSummary* preds = Table(d, "pdr_predictions");
  ASSERT_NE(preds, nullptr);
  EXPECT_EQ(preds->kind, TableKind::kRaw);
  EXPECT_EQ(preds->rows, 2369);
  EXPECT_EQ(preds->first_ms, 1721952002000);
  EXPECT_EQ(preds->last_ms, 1721959192000);
  const TableSummary* bronze = Table(d, "bronze_pdr_predictions");
  ASSERT_NE(bronze, nullptr);
  EXPECT_EQ(bronze->kind, TableKind::kBuilt);
  EXPECT_EQ(bronze->rows, 2369);
  const TableSummary* gold = Table(d, "gold_feed_daily");
  ASSERT_NE(gold, nullptr);
  EXPECT_EQ(gold->first_ms, kFixtureStartMs);  // by day: 2024-07-26
  EXPECT_EQ(Table(d, "pdr_contracts")->kind, TableKind::kSnapshot);
  EXPECT_EQ(Table(d, "predlake_runs"), nullptr);

  ASSERT_TRUE(d.checkpoint.has_value());
  EXPECT_EQ(d.checkpoint->checkpoint_ms, kFixtureEndMs);
  EXPECT_EQ(d.frontier.frontier_ms, kFixtureEndMs + 1000);
  EXPECT_EQ(d.frontier.held_by, "pdr_payouts");
  int64_t waiting = 0;
  for (const etl::WaitingEvents& w : d.waiting) waiting += w.events;
  EXPECT_GT(waiting, 0);
  ASSERT_EQ(d.last_runs.size(), 1u);
  EXPECT_EQ(d.last_runs[0].command, "etl update");
  EXPECT_EQ(d.last_runs[0].status, "succeeded");

  std::ostringstream text;
  WriteDescriptionText(text, d, 0);
  EXPECT_NE(text.str().find("Frontier         2024-07-26T02:00:01Z (1721959201000), held back "
                            "by pdr_payouts"),
            std::string::npos)
      << text.str();
  EXPECT_NE(text.str().find("Checkpoint       2024-07-26T02:00:00Z (1721959200000)"),
            std::string::npos);

  std::ostringstream json;
  WriteDescriptionJson(json, d);
  auto j = nlohmann::json::parse(json.str());
  EXPECT_EQ(j["frontier"]["held_back_by"], "pdr_payouts");
  EXPECT_EQ(j["frontier"]["frontier_ms"], kFixtureEndMs + 1000);
  EXPECT_EQ(j["checkpoint"]["checkpoint"], "2024-07-26T02:00:00Z");
  EXPECT_EQ(j["tables"][0]["name"], "pdr_predictions");
  EXPECT_EQ(j["tables"][0]["rows"], 2369);
  EXPECT_EQ(j["tables"][0]["first"], "2024-07-26T00:00:02Z");
  EXPECT_EQ(j["watermarks"][2]["table"], "pdr_payouts");
  EXPECT_EQ(j["watermarks"][2]["watermark_ms"], kFixtureEndMs + 1000);
  EXPECT_EQ(j["last_runs"][0]["status"], "succeeded");
  EXPECT_TRUE(j["waiting_updates"].is_array());
  EXPECT_FALSE(j.contains("rebuild_required"));
  EXPECT_EQ(text.str().find("Rebuild needed"), std::string::npos);
}

TEST(Describe, NamesTheRebuildAnUpgradeRequires) {
  TempDir dir;
  testing::MakeFixtureLake(dir.path(), /*build=*/true);
  {
    auto lake = testing::OpenTestLake(dir.path());
    ASSERT_NE(lake, nullptr);
    ASSERT_TRUE(
        lake->SetMeta(lake::kMetaRebuildRequired, "columns added: gold_feed_daily.consensus_slots")
            .ok());
  }
  Description d = DescribeDir(dir.path());
  ASSERT_TRUE(d.rebuild_required.has_value());
  std::ostringstream text;
  WriteDescriptionText(text, d, 0);
  EXPECT_NE(text.str().find("Rebuild needed   the built tables predate this predlake (columns "
                            "added: gold_feed_daily.consensus_slots)"),
            std::string::npos)
      << text.str();
  std::ostringstream json;
  WriteDescriptionJson(json, d);
  EXPECT_EQ(nlohmann::json::parse(json.str())["rebuild_required"],
            "columns added: gold_feed_daily.consensus_slots");
}

TEST(Describe, FirstAndLastStayExactAfterTheEndRowsAreDeleted) {
  // DuckDB's statistics keep the bounds of deleted rows: describe's first and last must come from
  // the rows that are left, on disk and in the WAL alike.
  TempDir dir;
  {
    auto lake = testing::OpenTestLake(dir.path());
    ASSERT_NE(lake, nullptr);
    ASSERT_TRUE(lake->conn()
                    .Execute("INSERT INTO pdr_subscriptions (ID, timestamp) SELECT 's' || i, "
                             "i * 1000 FROM range(1, 200001) t(i); CHECKPOINT; DELETE FROM "
                             "pdr_subscriptions WHERE timestamp < 5000 OR timestamp > 199990000; "
                             "INSERT INTO pdr_subscriptions (ID, timestamp) VALUES ('late', 7000)",
                             "t")
                    .ok());
  }
  Description d = DescribeDir(dir.path());
  const TableSummary* t = Table(d, "pdr_subscriptions");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->rows, 200000 - 4 - 10 + 1);
  EXPECT_EQ(t->first_ms, 5000);
  EXPECT_EQ(t->last_ms, 199990000);
}

}  // namespace
}  // namespace predlake::ops
