#include "jobs/update.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <nlohmann/json.hpp>

#include "../raw/raw_test_util.hpp"
#include "source/sim/world.hpp"

namespace predlake::jobs {
namespace {

using raw::rawtest::Ms;
using raw::rawtest::TempDir;

struct Ledger {
  std::string status;
  std::string error;
  nlohmann::json detail;
  lake::TableCountsMap tables;
};

// The only run of the lake at `dir`, read back as `runs` would.
Ledger OnlyRun(const std::string& dir) {
  Ledger out;
  auto lake = test_support::OpenReadTestLake(dir);
  if (!lake) return out;
  auto rows = lake->conn()
                  .Query("SELECT status, coalesce(error, ''), detail FROM predlake_runs", "t")
                  .value()
                  .ToText();
  EXPECT_EQ(rows.size(), 1u);
  if (rows.size() != 1) return out;
  out.status = rows[0][0].value_or("");
  out.error = rows[0][1].value_or("");
  out.detail = nlohmann::json::parse(rows[0][2].value_or("null"));
  auto tables = lake->conn()
                    .Query("SELECT table_name, rows_in, rows_out FROM predlake_run_tables", "t")
                    .value()
                    .ToText();
  for (const auto& row : tables) {
    out.tables[*row[0]] = {std::stoll(*row[1]), std::stoll(*row[2]), 0, 0};
  }
  return out;
}

UpdateRequest Request(const std::string& dir, const config::SimConfig& world,
                      raw::TransportFactory factory, Sleeper* sleeper) {
  UpdateRequest r;
  r.writer.lake_dir = dir;
  r.start_ms = Ms(world.start);
  r.end_ms = [](int64_t now_ms) -> Result<int64_t> { return now_ms; };
  r.factory = std::move(factory);
  r.sleeper = sleeper;
  r.retry.jitter_seed = 1;
  return r;
}

TEST(JobsUpdate, RawAndEtlAreOneRunWithBothRecords) {
  TempDir dir;
  auto world = raw::rawtest::SmallWorld();
  auto engine = raw::rawtest::MakeEngine(world);
  raw::rawtest::NoSleep sleep;
  UpdateRequest request = Request(dir.path(), world, raw::rawtest::SimFactory(engine), &sleep);
  int fetches = 0;
  request.after_fetch = [&](const raw::UpdateReport&) { ++fetches; };
  auto report = Update(request, Ms(world.now));
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(fetches, 1);
  EXPECT_EQ(report->raw.run_id, report->etl.run_id);
  EXPECT_TRUE(report->etl.changed);

  Ledger run = OnlyRun(dir.path());
  EXPECT_EQ(run.status, "succeeded");
  EXPECT_EQ(run.detail["raw"]["head_ms"], report->raw.head_ms);
  EXPECT_EQ(run.detail["raw"]["end_ms"], report->raw.end_ms);
  EXPECT_EQ(run.detail["raw"]["contracts"], report->raw.contracts);
  EXPECT_EQ(run.detail["changed"], true);
  for (const raw::TableReport& t : report->raw.tables) {
    // The fetch's own counts are kept under detail "raw"; the run's counts of an input table are
    // what the ETL read of it.
    const auto& fetched = run.detail["raw"]["tables"][t.table];
    EXPECT_EQ(fetched["rows_in"], t.counts.rows_in) << t.table;
    EXPECT_EQ(fetched["rows_out"], t.counts.rows_out) << t.table;
    EXPECT_EQ(fetched["rows_updated"], t.counts.rows_updated) << t.table;
    auto etl = report->etl.tables.find(t.table);
    if (etl != report->etl.tables.end()) {
      EXPECT_EQ(run.tables[t.table].rows_in, etl->second.rows_in) << t.table;
    } else {
      EXPECT_EQ(run.tables[t.table].rows_out, t.counts.rows_out) << t.table;
    }
  }
  // The fetch stored rows that the ETL then read.
  ASSERT_TRUE(report->etl.tables.count("pdr_predictions"));
  EXPECT_GT(report->etl.tables.at("pdr_predictions").rows_in, 0);
  EXPECT_EQ(run.tables["bronze_pdr_predictions"].rows_out,
            report->etl.tables["bronze_pdr_predictions"].rows_out);
}

TEST(JobsUpdate, FeedsWithoutNftDataGetPairAndTimeframeThroughRawBronzeAndGold) {
  // Every feed's token has `nft: null` (mainnet): pair from token.name, timeframe from
  // secondsPerEpoch, source from the configured fallback, in raw, bronze and gold alike.
  TempDir dir;
  auto world = raw::rawtest::SmallWorld();
  world.nftless_feeds = 1;
  auto engine = raw::rawtest::MakeEngine(world);
  raw::rawtest::NoSleep sleep;
  UpdateRequest request = Request(dir.path(), world, raw::rawtest::SimFactory(engine), &sleep);
  auto report = Update(request, Ms(world.now));
  ASSERT_TRUE(report.ok()) << report.status().message();
  auto lake = raw::rawtest::OpenTestLake(dir.path());
  ASSERT_NE(lake, nullptr);
  // Each feed's rows name its own pair and timeframe (the simulator's truth).
  std::string feeds;
  for (const sim::Feed& f : engine->world().feeds()) {
    feeds += std::string(feeds.empty() ? "" : ", ") + "('" + f.contract + "', '" + f.pair + "', '" +
             f.timeframe + "', '" + f.source + "')";
  }
  const std::string truth = "(VALUES " + feeds + ") AS t(c, p, tf, src)";
  for (const std::string table :
       {"bronze_pdr_predictions", "bronze_pdr_slots", "gold_predictoor_daily", "gold_feed_daily",
        "gold_feed_sales_daily"}) {
    auto all = lake->conn().QueryInt("SELECT count(*) FROM " + table, "t");
    ASSERT_TRUE(all.ok()) << all.status().message();
    EXPECT_GT(**all, 0) << table;
    auto right = lake->conn().QueryInt("SELECT count(*) FROM " + table + " JOIN " + truth +
                                           " ON t.c = contract AND t.p = pair AND "
                                           "t.tf = timeframe AND t.src = source",
                                       "t");
    ASSERT_TRUE(right.ok()) << right.status().message();
    EXPECT_EQ(**right, **all) << table;
  }
  for (const std::string table : {"pdr_truevals", "pdr_payouts"}) {
    auto right = lake->conn().QueryInt("SELECT count(*) FROM " + table + " JOIN " + truth +
                                           " ON t.c = split_part(ID, '-', 1) AND t.p = token",
                                       "t");
    auto all = lake->conn().QueryInt("SELECT count(*) FROM " + table, "t");
    ASSERT_TRUE(right.ok() && all.ok());
    EXPECT_GT(**all, 0) << table;
    EXPECT_EQ(**right, **all) << table;
  }
}

TEST(JobsUpdate, AFailedFetchRecordsWhatRawUpdateRecords) {
  TempDir dir;
  auto world = raw::rawtest::SmallWorld();
  auto engine = raw::rawtest::MakeEngine(world);
  raw::rawtest::NoSleep sleep;
  // The head and the contracts come through; every table's fetcher then gets no transport.
  std::atomic<int> made{0};
  auto factory = [&, sim = raw::rawtest::SimFactory(engine)](
                     const raw::TransportUse& use) -> std::unique_ptr<gql::Transport> {
    return made++ == 0 ? sim(use) : nullptr;
  };
  auto report = Update(Request(dir.path(), world, factory, &sleep), Ms(world.now));
  ASSERT_FALSE(report.ok());

  Ledger run = OnlyRun(dir.path());
  EXPECT_EQ(run.status, "failed");
  EXPECT_EQ(run.error, report.status().message());
  EXPECT_EQ(run.detail["raw"]["head_ms"], engine->HeadMs() / 1000 * 1000);
  EXPECT_EQ(run.detail["raw"]["contracts"], 6);
  EXPECT_EQ(run.tables.size(), 5u);
  EXPECT_EQ(run.detail["raw"]["tables"].size(), 5u);
  EXPECT_FALSE(run.detail.contains("changed")) << "the ETL must not run after a failed fetch";
}

TEST(JobsUpdate, AFailedEndIsReturnedBeforeTheLakeIsTouched) {
  TempDir dir;
  auto world = raw::rawtest::SmallWorld();
  UpdateRequest request = Request(dir.path() + "/lake", world, nullptr, nullptr);
  request.end_ms = [](int64_t) -> Result<int64_t> { return Status::Usage("--to: bad"); };
  auto report = Update(request, 0);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().message(), "--to: bad");
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/lake"));
}

}  // namespace
}  // namespace predlake::jobs
