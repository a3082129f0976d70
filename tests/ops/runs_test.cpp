#include "ops/runs.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <sstream>

#include "test_lake.hpp"

namespace predlake::ops {
namespace {

using testing::TempDir;

constexpr int64_t kT0 = 1721952000000;

// Three runs: succeeded with counts, failed, and one still running (its handle in `running`).
std::unique_ptr<lake::Lake> LakeWithRuns(const std::string& dir, FixedClock& clock,
                                         std::optional<lake::Run>& running) {
  auto lake = testing::OpenTestLake(dir, {.command = "runs test", .clock = &clock});
  if (lake == nullptr) return nullptr;
  auto id1 = lake->BeginRun("raw update");
  EXPECT_TRUE(id1.ok());
  id1->SetWindow(kT0, kT0 + 3600000);
  id1->tables()["pdr_predictions"] = {120, 118, 0, 0};
  id1->tables()["bronze_pdr_predictions"] = {118, 100, 18, 2};
  id1->detail()["pages"] = 3;
  EXPECT_TRUE(id1->Finish().ok());
  auto id2 = lake->BeginRun("etl update");
  EXPECT_TRUE(id2.ok());
  EXPECT_EQ(id2->Fail(Status::Source("subgraph answered 502")).message(), "subgraph answered 502");
  auto id3 = lake->BeginRun("etl rebuild");
  EXPECT_TRUE(id3.ok());
  running.emplace(std::move(id3).value());
  return lake;
}

TEST(Runs, NewestFirstWithCountsAndLimit) {
  TempDir dir;
  FixedClock clock(kT0);
  std::unique_ptr<lake::Lake> lake;
  std::optional<lake::Run> running;  // destroyed before the lake
  lake = LakeWithRuns(dir.path(), clock, running);
  ASSERT_NE(lake, nullptr);
  auto all = ListRuns(lake->conn(), 0);
  ASSERT_TRUE(all.ok()) << all.status().message();
  ASSERT_EQ(all->size(), 3u);
  EXPECT_EQ((*all)[0].run_id, 3);
  EXPECT_EQ((*all)[0].status, "running");
  EXPECT_EQ((*all)[1].status, "failed");
  EXPECT_EQ((*all)[1].error, "subgraph answered 502");
  EXPECT_EQ((*all)[2].command, "raw update");
  ASSERT_EQ((*all)[2].tables.size(), 2u);
  EXPECT_EQ((*all)[2].tables.begin()->first, "bronze_pdr_predictions");
  EXPECT_EQ((*all)[2].tables.at("bronze_pdr_predictions").rows_updated, 18);
  EXPECT_EQ(SummarizeTables((*all)[2].tables),
            "bronze_pdr_predictions in=118 out=100 upd=18 del=2; pdr_predictions in=120 out=118");

  auto two = ListRuns(lake->conn(), 2);
  ASSERT_TRUE(two.ok());
  ASSERT_EQ(two->size(), 2u);
  EXPECT_EQ((*two)[0].run_id, 3);
  EXPECT_EQ((*two)[1].run_id, 2);
}

TEST(Runs, TableAndJsonForms) {
  TempDir dir;
  FixedClock clock(kT0);
  std::unique_ptr<lake::Lake> lake;
  std::optional<lake::Run> running;  // destroyed before the lake
  lake = LakeWithRuns(dir.path(), clock, running);
  ASSERT_NE(lake, nullptr);
  auto runs = ListRuns(lake->conn(), 0);
  ASSERT_TRUE(runs.ok());
  ResultSet rs = RunsResultSet(*runs);
  ASSERT_EQ(rs.columns.size(), 11u);
  ASSERT_EQ(rs.rows.size(), 3u);
  EXPECT_EQ(rs.rows[0][2], "running");
  EXPECT_EQ(rs.rows[0][4], std::nullopt);  // no duration while running
  EXPECT_EQ(rs.rows[2][3], "2024-07-26T00:00:00Z");
  EXPECT_EQ(rs.rows[2][4], "0.000s");
  EXPECT_EQ(rs.rows[2][5], "2024-07-26T00:00:00Z");
  EXPECT_EQ(rs.rows[2][6], "2024-07-26T01:00:00Z");
  EXPECT_EQ(rs.rows[1][10], "subgraph answered 502");
  ResultSet brief = RunsResultSet(*runs, /*brief=*/true);
  EXPECT_EQ(brief.columns, (std::vector<std::string>{"run_id", "command", "status", "started",
                                                     "duration", "error"}));

  std::ostringstream out;
  WriteRunsJson(out, *runs);
  auto j = nlohmann::json::parse(out.str());
  ASSERT_EQ(j.size(), 3u);
  EXPECT_EQ(j[2]["tables"]["pdr_predictions"]["rows_out"], 118);
  EXPECT_EQ(j[2]["detail"]["pages"], 3);
  EXPECT_EQ(j[2]["window_end_ms"], kT0 + 3600000);
  EXPECT_EQ(j[2]["watermarks_after"], nlohmann::json::object());
  EXPECT_TRUE(j[0]["ended_at_ms"].is_null());
  EXPECT_EQ(j[1]["error"], "subgraph answered 502");
}

TEST(Runs, EmptyLedger) {
  TempDir dir;
  auto lake = testing::OpenTestLake(dir.path());
  ASSERT_NE(lake, nullptr);
  auto runs = ListRuns(lake->conn(), 5);
  ASSERT_TRUE(runs.ok());
  EXPECT_TRUE(runs->empty());
  std::ostringstream out;
  WriteRunsJson(out, *runs);
  EXPECT_EQ(out.str(), "[]\n");
}

}  // namespace
}  // namespace predlake::ops
