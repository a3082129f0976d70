// A lake built before the gold tables gained columns (lake::kBuiltColumnsAdded): the upgrade adds
// them and flags the built tables; the next `etl update` rebuilds them from raw (and equals a
// rebuild), and a rollback refuses until then.
#include <gtest/gtest.h>

#include "etl_test_util.hpp"

namespace predlake::etl::testing {
namespace {

UpdateOptions UpgradeOptions(std::optional<int64_t> to) {
  UpdateOptions options;
  options.faults = {};
  options.to_ms = to;
  options.st_ms = kFixtureStart;
  return options;
}

TEST(GoldUpgrade, AnOldLakeIsRebuiltByItsNextUpdate) {
  TempLake dir{"upgrade"};
  const int64_t mid = kFixtureStart + 60 * kMinute;
  {
    auto lake = dir.Open();
    ASSERT_TRUE(lake);
    LoadFixtureSources(*lake, {.null_prediction_late_fields = true, .null_some_stakes = true});
    FeedAll(*lake, kFixtureStart, mid);
    auto report = Update(*lake, UpgradeOptions(std::nullopt));
    ASSERT_TRUE(report.ok()) << report.status().message();
    // As a lake of the previous schema: without the added columns.
    for (const lake::BuiltColumnDef& column : lake::kBuiltColumnsAdded) {
      Exec(*lake,
           "ALTER TABLE " + std::string(column.table) + " DROP COLUMN " + std::string(column.name));
    }
    EXPECT_EQ(QueryInt(*lake, "SELECT count(*) FROM predlake_meta WHERE key = '" +
                                  std::string(lake::kMetaRebuildRequired) + "'"),
              0);
  }
  auto lake = dir.Open();
  ASSERT_TRUE(lake);
  // The old rows hold NULL in the new columns, and the lake says they must be rebuilt.
  EXPECT_GT(QueryInt(*lake,
                     "SELECT count(*) FROM gold_predictoor_daily WHERE settled_payout IS "
                     "NULL"),
            0);
  auto stale = lake->GetMeta(lake::kMetaRebuildRequired);
  ASSERT_TRUE(stale.ok());
  ASSERT_TRUE(stale->has_value());
  EXPECT_EQ(**stale, std::to_string(std::size(lake::kBuiltColumnsAdded)) +
                         " columns added to gold_predictoor_daily, gold_feed_daily, "
                         "bronze_pdr_slots");

  // A rollback would fold into the unbuilt values: refused, nothing changed.
  auto dropped = Drop(*lake, mid - 30 * kMinute, RunOptions{});
  ASSERT_FALSE(dropped.ok());
  EXPECT_NE(dropped.status().message().find("predlake etl rebuild"), std::string::npos)
      << dropped.status().message();
  EXPECT_EQ(CheckpointMs(*lake), mid);

  FeedAll(*lake, kFixtureStart, kFixtureEnd);
  auto report = Update(*lake, UpgradeOptions(std::nullopt));
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_NE(report->message.find("rebuilt from raw"), std::string::npos) << report->message;
  EXPECT_EQ(CheckpointMs(*lake), kFixtureEnd);
  stale = lake->GetMeta(lake::kMetaRebuildRequired);
  ASSERT_TRUE(stale.ok());
  EXPECT_FALSE(stale->has_value());
  EXPECT_EQ(QueryInt(*lake,
                     "SELECT count(*) FROM gold_predictoor_daily WHERE settled_payout IS "
                     "NULL OR refund_claimed IS NULL"),
            0);
  EXPECT_EQ(QueryInt(*lake, "SELECT count(*) FROM gold_feed_daily WHERE consensus_slots IS NULL"),
            0);

  // What it built is what a rebuild builds; later updates are incremental again.
  Snapshot(*lake, "upgraded");
  auto rebuilt = Rebuild(*lake, UpgradeOptions(std::nullopt));
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.status().message();
  EXPECT_EQ(DiffSnapshot(*lake, "upgraded"), "");
  auto again = Drop(*lake, mid, RunOptions{});
  ASSERT_TRUE(again.ok()) << again.status().message();
  auto next = Update(*lake, UpgradeOptions(std::nullopt));
  ASSERT_TRUE(next.ok()) << next.status().message();
  EXPECT_EQ(next->message.find("rebuilt"), std::string::npos) << next->message;
  EXPECT_EQ(DiffSnapshot(*lake, "upgraded"), "");
}

}  // namespace
}  // namespace predlake::etl::testing
