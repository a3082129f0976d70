// The reference fixtures (two hours of mainnet): the facts pdr-backend's tests assert, and ours.
#include <gtest/gtest.h>

#include "etl_test_util.hpp"

namespace predlake::etl::testing {
namespace {

class FixtureEtl : public ::testing::Test {
 protected:
  void SetUp() override {
    lake_ = OpenFedFixtureLake(dir_);
    ASSERT_TRUE(lake_);
  }

  RunReport RunUpdate(std::optional<int64_t> to) {
    UpdateOptions options;
    options.faults = {};
    options.to_ms = to;
    options.st_ms = kFixtureStart;
    auto report = Update(*lake_, options);
    EXPECT_TRUE(report.ok()) << report.status().message();
    return report.ok() ? *report : RunReport{};
  }

  int64_t Count(const std::string& where) {
    return QueryInt(*lake_, "SELECT count(*) FROM bronze_pdr_predictions WHERE " + where);
  }

  TempLake dir_{"fixtures"};
  std::unique_ptr<lake::Lake> lake_;
};

TEST_F(FixtureEtl, OneRunOverTheTwoHours) {
  RunReport report = RunUpdate(std::nullopt);
  EXPECT_TRUE(report.changed);
  EXPECT_EQ(report.window_start_ms, kFixtureStart);
  EXPECT_EQ(report.window_end_ms, kFixtureEnd);
  EXPECT_EQ(CheckpointMs(*lake_), kFixtureEnd);
  EXPECT_EQ(Count("true"), 2369);
  EXPECT_EQ(Count("payout IS NOT NULL"), 2020);
  EXPECT_EQ(Count("payout IS NULL"), 349);
  EXPECT_EQ(QueryInt(*lake_, "SELECT count(DISTINCT ID) FROM bronze_pdr_predictions"), 2369);
  // Every payout with a matching prediction is folded, with its exact amount and predvalue.
  EXPECT_EQ(QueryInt(*lake_,
                     "SELECT count(*) FROM bronze_pdr_predictions b JOIN pdr_payouts y USING (ID) "
                     "WHERE b.payout = y.payout AND b.predvalue = y.predvalue"),
            2020);
  // Truevals reach every prediction of their slot, claimed or not.
  EXPECT_EQ(QueryInt(*lake_,
                     "SELECT count(*) FROM bronze_pdr_predictions b JOIN pdr_truevals t "
                     "ON b.slot_id = split_part(t.ID, '-', 1) || '-' || t.slot "
                     "WHERE b.truevalue IS DISTINCT FROM t.truevalue OR b.status <> 'paying'"),
            0);
  EXPECT_EQ(Count("status = 'canceled'"), 0);
  // The ledger records the run with its window and counts.
  EXPECT_EQ(report.tables["bronze_pdr_predictions"].rows_out, 2369);
  EXPECT_EQ(report.tables["pdr_payouts"].rows_in, 2349);
  EXPECT_EQ(QueryInt(*lake_,
                     "SELECT count(*) FROM predlake_runs WHERE status = 'succeeded' AND "
                     "command = 'etl update' AND window_end_ms = " +
                         std::to_string(kFixtureEnd)),
            1);
  EXPECT_EQ(QueryInt(*lake_, "SELECT rows_out FROM predlake_run_tables WHERE run_id = " +
                                 std::to_string(report.run_id) +
                                 " AND table_name = 'bronze_pdr_predictions'"),
            2369);
  EXPECT_EQ(QueryInt(*lake_,
                     "SELECT count(*) FROM duckdb_tables() WHERE table_name LIKE "
                     "'" +
                         std::string(lake::kEtlStagingPrefix) + "%'"),
            0);
}

TEST_F(FixtureEtl, WaitingPayoutsAreKeptAndReported) {
  RunUpdate(std::nullopt);
  auto waiting = Waiting(*lake_);
  ASSERT_TRUE(waiting.ok()) << waiting.status().message();
  ASSERT_EQ(waiting->size(), 2u);
  EXPECT_EQ((*waiting)[0].table, "pdr_payouts");
  EXPECT_EQ((*waiting)[0].events, 329);
  EXPECT_EQ((*waiting)[0].oldest_ms,
            QueryInt(*lake_,
                     "SELECT min(timestamp) FROM pdr_payouts y WHERE NOT EXISTS "
                     "(SELECT 1 FROM pdr_predictions p WHERE p.ID = y.ID)"));
  EXPECT_EQ((*waiting)[1].table, "pdr_truevals");
  // Slot 1721952000 of every feed (its predictions predate the window) and slot 1721955600 of
  // the 1h feeds (no prediction of it in the file).
  EXPECT_EQ((*waiting)[1].events, 30);
  EXPECT_EQ(QueryInt(*lake_, "SELECT count(*) FROM pdr_payouts"), 2349);
}

TEST_F(FixtureEtl, ThreeFortyMinuteRunsGiveTheSameTable) {
  TempLake other_dir("fixtures_one_run");
  auto other = OpenFedFixtureLake(other_dir);
  ASSERT_TRUE(other);
  UpdateOptions options;
  options.faults = {};
  options.st_ms = kFixtureStart;
  ASSERT_TRUE(Update(*other, options).ok());
  Snapshot(*other, "one");

  // Per step: rows in the step's window without / with a payout as of the step's end.
  const int64_t expected[3][2] = {{209, 532}, {269, 555}, {249, 555}};
  for (int step = 0; step < 3; ++step) {
    int64_t from = kFixtureStart + step * 40 * kMinute;
    int64_t to = from + 40 * kMinute;
    RunReport report = RunUpdate(to);
    EXPECT_EQ(report.window_start_ms, from);
    EXPECT_EQ(report.window_end_ms, to);
    std::string window =
        "timestamp >= " + std::to_string(from) + " AND timestamp < " + std::to_string(to);
    EXPECT_EQ(Count(window + " AND payout IS NULL"), expected[step][0]) << "step " << step;
    EXPECT_EQ(Count(window + " AND payout IS NOT NULL"), expected[step][1]) << "step " << step;
  }
  EXPECT_EQ(Count("true"), 2369);
  EXPECT_EQ(Count("payout IS NOT NULL"), 2020);
  // Compare with the one-run lake: attach it would lock it, so compare through a copy.
  Snapshot(*lake_, "three");
  other.reset();
  Exec(*lake_, "ATTACH '" + other_dir.dir() + "/" + std::string(lake::kDatabaseFile) +
                   "' AS other (READ_ONLY)");
  for (std::string_view t : kBuiltTables) {
    std::string a = "test_snap_three_" + std::string(t);
    std::string b = "other.test_snap_one_" + std::string(t);
    EXPECT_EQ(QueryInt(*lake_, "SELECT count(*) FROM ((FROM " + a + " EXCEPT ALL FROM " + b +
                                   ") UNION ALL (FROM " + b + " EXCEPT ALL FROM " + a + "))"),
              0)
        << t;
  }
  Exec(*lake_, "DETACH other");
}

TEST_F(FixtureEtl, IncrementalEqualsRebuild) {
  for (int64_t to : {kFixtureStart + 7 * kMinute, kFixtureStart + 23 * kMinute,
                     kFixtureStart + 61 * kMinute, kFixtureStart + 62 * kMinute, kFixtureEnd}) {
    RunUpdate(to);
  }
  Snapshot(*lake_, "inc");
  UpdateOptions options;
  options.faults = {};
  auto rebuilt = Rebuild(*lake_, options);
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.status().message();
  EXPECT_EQ(DiffSnapshot(*lake_, "inc"), "");
}

TEST_F(FixtureEtl, NothingToDoIsReportedAndRecorded) {
  RunUpdate(std::nullopt);
  RunReport again = RunUpdate(std::nullopt);
  EXPECT_FALSE(again.changed);
  EXPECT_NE(again.message.find("nothing to do"), std::string::npos) << again.message;
  EXPECT_NE(again.message.find("held back by"), std::string::npos) << again.message;
  EXPECT_EQ(CheckpointMs(*lake_), kFixtureEnd);
  EXPECT_EQ(QueryInt(*lake_, "SELECT count(*) FROM predlake_runs WHERE status = 'succeeded'"), 2);
}

TEST_F(FixtureEtl, TheFrontierIsTheLowestInputWatermark) {
  Feed(*lake_, "pdr_truevals", kFixtureStart, kFixtureEnd, kFixtureEnd);
  ASSERT_TRUE(
      lake_->SetWatermark("pdr_payouts", {kFixtureStart, kFixtureStart + 30 * kMinute}, 0).ok());
  auto frontier = ComputeFrontier(*lake_);
  ASSERT_TRUE(frontier.ok());
  EXPECT_EQ(frontier->frontier_ms, kFixtureStart + 30 * kMinute);
  EXPECT_EQ(frontier->held_by, "pdr_payouts");
  RunReport report = RunUpdate(std::nullopt);
  EXPECT_EQ(report.window_end_ms, kFixtureStart + 30 * kMinute);
  EXPECT_EQ(CheckpointMs(*lake_), kFixtureStart + 30 * kMinute);
}

TEST_F(FixtureEtl, RollbackIntoFoldedUpdatesRestoresTheEarlierValues) {
  // Snapshots at several checkpoints, then a run to the end (which folds later payouts and
  // truevals into those rows), then rollbacks to each checkpoint, latest first and also directly.
  const int64_t points[] = {kFixtureStart + 17 * kMinute, kFixtureStart + 45 * kMinute,
                            kFixtureStart + 46 * kMinute + 1, kFixtureStart + 90 * kMinute};
  for (int i = 0; i < 4; ++i) {
    RunUpdate(points[i]);
    Snapshot(*lake_, "at" + std::to_string(i));
  }
  RunUpdate(std::nullopt);
  for (int64_t p : points) {
    // Rows that existed at the checkpoint and were changed by later events.
    ASSERT_GT(Count("timestamp < " + std::to_string(p) +
                    " AND last_event_timestamp >= " + std::to_string(p)),
              50);
  }
  for (int i = 3; i >= 2; --i) {
    auto r = Drop(*lake_, points[i], {});
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_TRUE(r->changed);
    EXPECT_EQ(CheckpointMs(*lake_), points[i]);
    EXPECT_EQ(DiffSnapshot(*lake_, "at" + std::to_string(i)), "") << "rollback to " << points[i];
  }
  RunUpdate(std::nullopt);
  auto r = Drop(*lake_, points[0], {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_GT(r->tables["bronze_pdr_predictions"].rows_updated, 0);
  EXPECT_GT(r->tables["bronze_pdr_predictions"].rows_deleted, 0);
  EXPECT_EQ(DiffSnapshot(*lake_, "at0"), "");
  // Forward again: the same values as before the rollbacks.
  RunUpdate(points[1]);
  EXPECT_EQ(DiffSnapshot(*lake_, "at1"), "");
}

TEST_F(FixtureEtl, DropAtOrAfterTheCheckpointChangesNothing) {
  RunUpdate(kFixtureStart + 30 * kMinute);
  Snapshot(*lake_, "before");
  for (int64_t t : {kFixtureStart + 30 * kMinute, kFixtureEnd}) {
    auto r = Drop(*lake_, t, {});
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_FALSE(r->changed);
    EXPECT_NE(r->message.find("nothing to roll back"), std::string::npos) << r->message;
    EXPECT_EQ(CheckpointMs(*lake_), kFixtureStart + 30 * kMinute);
  }
  EXPECT_EQ(DiffSnapshot(*lake_, "before"), "");
}

TEST_F(FixtureEtl, NoopRunsAreRecordedAlikeForUpdateAndDrop) {
  // An `etl update` and an `etl drop` that have nothing to do both record the empty window at the
  // checkpoint, changed = false, and succeed.
  const int64_t c = kFixtureStart + 30 * kMinute;
  RunUpdate(c);
  RunReport update = RunUpdate(c);
  auto drop = Drop(*lake_, kFixtureEnd, {});
  ASSERT_TRUE(drop.ok()) << drop.status().message();
  for (int64_t run : {update.run_id, drop->run_id}) {
    EXPECT_EQ(QueryInt(*lake_, "SELECT count(*) FROM predlake_runs WHERE run_id = " +
                                   std::to_string(run) + " AND status = 'succeeded' AND " +
                                   "window_start_ms = " + std::to_string(c) +
                                   " AND window_end_ms = " + std::to_string(c) +
                                   " AND json_extract_string(detail, '$.changed') = 'false'"),
              1)
        << "run " << run;
  }
}

TEST_F(FixtureEtl, DropBeforeTheStartEmptiesTheBuiltTables) {
  RunUpdate(std::nullopt);
  auto r = Drop(*lake_, kFixtureStart - kMinute, {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(CheckpointMs(*lake_), -1);
  for (std::string_view t : kBuiltTables) {
    EXPECT_EQ(QueryInt(*lake_, "SELECT count(*) FROM " + std::string(t)), 0) << t;
  }
  // Raw is untouched, and the next update builds everything again.
  EXPECT_EQ(QueryInt(*lake_, "SELECT count(*) FROM pdr_predictions"), 2369);
  RunUpdate(std::nullopt);
  EXPECT_EQ(Count("true"), 2369);
}

TEST_F(FixtureEtl, RawDropPullsTheCheckpointBackAndARefillRestoresTheTables) {
  RunUpdate(std::nullopt);
  Snapshot(*lake_, "full");
  const int64_t t = kFixtureStart + 70 * kMinute;
  auto r = RawDrop(*lake_, t, {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(CheckpointMs(*lake_), t);
  EXPECT_EQ(
      QueryInt(*lake_, "SELECT count(*) FROM pdr_payouts WHERE timestamp >= " + std::to_string(t)),
      0);
  EXPECT_EQ(Count("timestamp >= " + std::to_string(t)), 0);
  auto marks = lake_->Watermarks();
  ASSERT_TRUE(marks.ok());
  for (const auto& [table, mark] : *marks) EXPECT_EQ(mark.watermark_ms, t) << table;
  EXPECT_EQ(QueryInt(*lake_,
                     "SELECT count(*) FROM predlake_runs WHERE command = 'raw drop' AND "
                     "status = 'succeeded' AND checkpoint_after_ms = " +
                         std::to_string(t)),
            1);
  FeedAll(*lake_, kFixtureStart, kFixtureEnd);
  RunUpdate(std::nullopt);
  EXPECT_EQ(DiffSnapshot(*lake_, "full"), "");
}

TEST_F(FixtureEtl, AnEarlierStepsRecordIsKeptOnTheRun) {
  // `update` begins one run, fetches raw under it, and lets the ETL finish it.
  auto run = lake_->BeginRun("update");
  ASSERT_TRUE(run.ok());
  run->tables()["pdr_payouts"] = {2349, 2349, 0, 0};
  run->detail()["raw"] = {{"head_ms", 1}};
  UpdateOptions options;
  auto report = etl::Update(*lake_, *run, options);
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->run_id, run->id());
  EXPECT_EQ(QueryInt(*lake_, "SELECT count(*) FROM predlake_runs"), 1);
  EXPECT_EQ(QueryInt(*lake_,
                     "SELECT count(*) FROM predlake_runs WHERE command = 'update' AND "
                     "status = 'succeeded' AND detail LIKE '%\"raw\":{\"head_ms\":1}%'"),
            1);
  // An input table's counts on the run are what the ETL read of it (the fetch keeps its own
  // counts in the detail).
  EXPECT_EQ(QueryInt(*lake_,
                     "SELECT rows_in FROM predlake_run_tables WHERE table_name = "
                     "'pdr_payouts'"),
            report->tables.at("pdr_payouts").rows_in);
  EXPECT_GT(report->tables.at("pdr_payouts").rows_in, 0);
  EXPECT_EQ(QueryInt(*lake_,
                     "SELECT rows_out FROM predlake_run_tables WHERE table_name = "
                     "'bronze_pdr_predictions'"),
            2369);

  // A failure is recorded on that run too, keeping the earlier step's counts.
  ASSERT_TRUE(Drop(*lake_, kFixtureStart + 10 * kMinute, {}).ok());
  auto second = lake_->BeginRun("update");
  ASSERT_TRUE(second.ok());
  second->tables()["pdr_payouts"] = {5, 5, 0, 0};
  options.faults.fail_at = "compute_predictions";
  ASSERT_FALSE(etl::Update(*lake_, *second, options).ok());
  EXPECT_TRUE(second->ended());
  EXPECT_EQ(QueryInt(*lake_, "SELECT count(*) FROM predlake_runs WHERE run_id = " +
                                 std::to_string(second->id()) + " AND status = 'failed'"),
            1);
  EXPECT_EQ(QueryInt(*lake_, "SELECT rows_out FROM predlake_run_tables WHERE run_id = " +
                                 std::to_string(second->id()) + " AND table_name = 'pdr_payouts'"),
            5);
}

TEST_F(FixtureEtl, FingerprintsSeeOneChangedValue) {
  RunUpdate(std::nullopt);
  std::string before = Fingerprint(*lake_);
  EXPECT_EQ(Fingerprint(*lake_), before);
  Exec(*lake_,
       "UPDATE bronze_pdr_predictions SET payout = payout + 0.000000000000000001 WHERE ID = "
       "(SELECT min(ID) FROM bronze_pdr_predictions WHERE payout IS NOT NULL)");
  EXPECT_NE(Fingerprint(*lake_), before);
}

TEST(EtlErrors, MissingWatermarksAreNamedAndRecorded) {
  TempLake dir("missing");
  auto lake = dir.Open();
  ASSERT_TRUE(lake);
  ASSERT_TRUE(lake->SetWatermark("pdr_predictions", {kFixtureStart, kFixtureEnd}, 0).ok());
  UpdateOptions options;
  options.faults = {};
  auto report = Update(*lake, options);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().code(), StatusCode::kData);
  EXPECT_NE(report.status().message().find("pdr_truevals, pdr_payouts, pdr_subscriptions have no "
                                           "watermark"),
            std::string::npos)
      << report.status().message();
  EXPECT_EQ(QueryInt(*lake, "SELECT count(*) FROM predlake_runs WHERE status = 'failed'"), 1);
  EXPECT_EQ(CheckpointMs(*lake), -1);
}

}  // namespace
}  // namespace predlake::etl::testing
