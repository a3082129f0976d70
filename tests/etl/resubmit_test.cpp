// A re-submitted prediction, by hand: raw holds its latest version in pdr_predictions and the first
// in predlake_prediction_versions (as a fetch between and after the two submissions leaves them),
// and the built tables show the stake of the version valid at the checkpoint.
#include <gtest/gtest.h>

#include "etl_test_util.hpp"

namespace predlake::etl::testing {
namespace {

// Slot 1000 s of contract 0xc (5m; its epoch runs to 1300 s). Prediction A (user 0xa) is submitted
// at 700 s with stake 10 and re-submitted at 800 s with stake 4; B (0xb) at 750 s with stake 5.
// Trueval at 1310 s, A's payout at 1500 s.
constexpr int64_t kFirstA = 700'000, kB = 750'000, kResubmitA = 800'000;
constexpr int64_t kTrueval = 1'310'000, kPayout = 1'500'000, kEnd = 2'000'000;

class ResubmitEtl : public ::testing::Test {
 protected:
  void SetUp() override {
    lake_ = dir_.Open();
    ASSERT_TRUE(lake_);
    Exec(*lake_,
         "INSERT INTO pdr_contracts VALUES ('0xc', 'BTC/USDT', '5m', 'binance', 300, 1200, "
         "'nft')");
    // Fetched at a head between the two submissions of A...
    Exec(*lake_,
         "INSERT INTO pdr_predictions VALUES ('0xc-1000-0xa', '0xc', 'BTC/USDT', '5m', "
         "NULL, 10, NULL, " +
             std::to_string(kFirstA) +
             ", 'binance', NULL, 1000, '0xa'), ('0xc-1000-0xb', '0xc', 'BTC/USDT', '5m', "
             "NULL, 5, NULL, " +
             std::to_string(kB) + ", 'binance', NULL, 1000, '0xb')");
    // ... then past them.
    FetchTheRest();
  }

  // What a fetch from 790 s to the end stores: A's re-submission (the stored version becomes a
  // version row), the trueval and the payout.
  void FetchTheRest() {
    const std::string a = "'0xc-1000-0xa'";
    Exec(*lake_, "INSERT INTO predlake_prediction_versions SELECT *, " +
                     std::to_string(kResubmitA) + " FROM pdr_predictions WHERE ID = " + a);
    Exec(*lake_, "UPDATE pdr_predictions SET stake = 4, timestamp = " + std::to_string(kResubmitA) +
                     " WHERE ID = " + a);
    Exec(*lake_, "INSERT INTO pdr_truevals VALUES ('0xc-1000', '0xc', " + std::to_string(kTrueval) +
                     ", true, 1000, 1.5, 9, 9)");
    Exec(*lake_, "INSERT INTO pdr_payouts VALUES ('0xc-1000-0xa', '0xc', '0xa', 1000, " +
                     std::to_string(kPayout) + ", 10.5, true, true, 4)");
    for (std::string_view t : lake::kRawTables) {
      ASSERT_TRUE(lake_->SetWatermark(std::string(t), {0, kEnd}, 0).ok());
    }
  }

  UpdateOptions To(std::optional<int64_t> to) {
    UpdateOptions o;
    o.faults = {};
    o.to_ms = to;
    o.st_ms = 0;
    return o;
  }

  void UpdateTo(std::optional<int64_t> to) {
    auto r = Update(*lake_, To(to));
    ASSERT_TRUE(r.ok()) << r.status().message();
  }

  std::string Text(const std::string& sql) {
    auto r = lake_->conn().Query(sql, "test");
    EXPECT_TRUE(r.ok()) << r.status().message();
    if (!r.ok()) return "";
    std::string out;
    for (const auto& row : r->ToText()) {
      for (const auto& cell : row) out += (out.empty() ? "" : "|") + cell.value_or("NULL");
    }
    return out;
  }

  // A's stake, timestamp and last event; the slot's count and stake; A's gold stake.
  std::string State() {
    return Text(
               "SELECT CAST(stake AS DOUBLE), timestamp, last_event_timestamp FROM "
               "bronze_pdr_predictions WHERE ID = '0xc-1000-0xa'") +
           " / " +
           Text("SELECT n_predictions, CAST(predicted_stake AS DOUBLE) FROM bronze_pdr_slots") +
           " / " +
           Text("SELECT CAST(stake AS DOUBLE) FROM gold_predictoor_daily WHERE user = '0xa'");
  }

  // The built tables equal a rebuild to the same checkpoint.
  void ExpectRebuildEquals() {
    Snapshot(*lake_, "incremental");
    auto r = Rebuild(*lake_, To(CheckpointMs(*lake_)));
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(DiffSnapshot(*lake_, "incremental"), "");
  }

  TempLake dir_{"resubmit"};
  std::unique_ptr<lake::Lake> lake_;
};

TEST_F(ResubmitEtl, TheStakeFollowsTheCheckpointAcrossUpdatesAndRollbacks) {
  UpdateTo(720'000);  // after A's first submission
  EXPECT_EQ(State(), "10|700000|700000 / 1|10 / 10");
  ExpectRebuildEquals();
  UpdateTo(760'000);  // after B
  EXPECT_EQ(State(), "10|700000|700000 / 2|15 / 10");
  ExpectRebuildEquals();
  UpdateTo(900'000);  // after the re-submission: an update event at its time
  EXPECT_EQ(State(), "4|700000|800000 / 2|9 / 4");
  ExpectRebuildEquals();
  UpdateTo(std::nullopt);  // trueval and payout
  EXPECT_EQ(State(), "4|700000|1500000 / 2|9 / 4");
  EXPECT_EQ(Text("SELECT CAST(payout AS DOUBLE) FROM bronze_pdr_predictions WHERE user = '0xa'"),
            "10.5");
  ExpectRebuildEquals();

  // etl drop between the submissions restores the first stake; on again, the latest.
  ASSERT_TRUE(Drop(*lake_, 790'000, To(std::nullopt)).ok());
  EXPECT_EQ(State(), "10|700000|700000 / 2|15 / 10");
  ExpectRebuildEquals();
  UpdateTo(std::nullopt);
  EXPECT_EQ(State(), "4|700000|1500000 / 2|9 / 4");

  // raw drop between them: raw goes back to the first version, so do the built tables; fetched
  // again, the latest.
  ASSERT_TRUE(RawDrop(*lake_, 790'000, To(std::nullopt)).ok());
  EXPECT_EQ(Text("SELECT CAST(stake AS DOUBLE), timestamp FROM pdr_predictions WHERE user = '0xa'"),
            "10|700000");
  EXPECT_EQ(QueryInt(*lake_, "SELECT count(*) FROM predlake_prediction_versions"), 0);
  EXPECT_EQ(CheckpointMs(*lake_), 790'000);
  EXPECT_EQ(State(), "10|700000|700000 / 2|15 / 10");
  ExpectRebuildEquals();
  FetchTheRest();
  UpdateTo(std::nullopt);
  EXPECT_EQ(State(), "4|700000|1500000 / 2|9 / 4");
  ExpectRebuildEquals();

  // raw drop before the first submission: the prediction is gone.
  ASSERT_TRUE(RawDrop(*lake_, 600'000, To(std::nullopt)).ok());
  EXPECT_EQ(QueryInt(*lake_, "SELECT count(*) FROM pdr_predictions"), 0);
  EXPECT_EQ(QueryInt(*lake_, "SELECT count(*) FROM predlake_prediction_versions"), 0);
  EXPECT_EQ(QueryInt(*lake_, "SELECT count(*) FROM bronze_pdr_predictions"), 0);
}

// A small incremental window runs on one DuckDB worker thread (docs/scale.md); the database's
// setting is what it was after every run, failed or not, and the result is the rebuild's.
TEST_F(ResubmitEtl, TheThreadsSettingComesBackAfterEveryRun) {
  auto threads = [&] {
    return QueryInt(*lake_, "SELECT CAST(current_setting('threads') AS BIGINT)");
  };
  Exec(*lake_, "SET threads = 3");
  UpdateTo(760'000);
  EXPECT_EQ(threads(), 3);
  UpdateOptions failing = To(900'000);
  failing.faults.fail_at = "publish_bronze";
  EXPECT_FALSE(Update(*lake_, failing).ok());
  EXPECT_EQ(threads(), 3);
  UpdateTo(std::nullopt);
  EXPECT_EQ(threads(), 3);
  ExpectRebuildEquals();
  EXPECT_EQ(threads(), 3);
}

}  // namespace
}  // namespace predlake::etl::testing
