#include "ops/validate.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/time.hpp"
#include "etl/etl.hpp"
#include "ops/open.hpp"
#include "test_lake.hpp"

namespace predlake::ops {
namespace {

namespace fs = std::filesystem;
using testing::Exec;
using testing::kFixtureEndMs;
using testing::kFixtureStartMs;
using testing::OpenTestLake;
using testing::TempDir;

ValidationReport ValidateDir(const std::string& dir, const ValidateOptions& options = {}) {
  auto lake = OpenForRead(dir);
  EXPECT_TRUE(lake.ok()) << lake.status().message();
  if (!lake.ok()) return {};
  auto report = Validate(**lake, options);
  EXPECT_TRUE(report.ok()) << report.status().message();
  return report.ok() ? std::move(report).value() : ValidationReport{};
}

const CheckResult& Get(const ValidationReport& report, const std::string& name) {
  for (const CheckResult& c : report.checks) {
    if (c.name == name) return c;
  }
  static CheckResult missing;
  ADD_FAILURE() << "no check " << name;
  return missing;
}

std::string Text(const ValidationReport& report) {
  std::ostringstream out;
  WriteValidationText(out, report, 0);
  return out.str();
}

// Expects each named check of `report` to count what is given.
void ExpectCounts(const ValidationReport& report,
                  std::initializer_list<std::pair<const char*, int64_t>> counts) {
  for (const auto& [name, count] : counts) {
    EXPECT_EQ(Get(report, name).count, count) << name << "\n" << Text(report);
  }
}

// Every test starts from a copy of one fixture lake built by the real ETL.
class ValidateTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    built_ = new TempDir();
    testing::MakeFixtureLake(built_->path(), /*build=*/true);
  }
  static void TearDownTestSuite() {
    delete built_;
    built_ = nullptr;
  }
  void SetUp() override {
    fs::copy_file(fs::path(built_->path()) / lake::kDatabaseFile,
                  fs::path(dir_.path()) / lake::kDatabaseFile);
  }
  // Runs SQL on this test's copy and closes it again.
  void Corrupt(const std::string& sql) {
    auto lake = OpenTestLake(dir_.path());
    ASSERT_NE(lake, nullptr);
    Exec(*lake, sql);
  }
  ValidationReport Run() { return ValidateDir(dir_.path()); }
  // The full validate of this test's copy read in week-long slot ranges and in ten-minute ones
  // (most ten-minute ranges hold no update waiting for a row, so their certificates agree unless
  // the damage is in them).
  std::vector<ValidationReport> RunInWeekAndTenMinuteRanges() {
    std::vector<ValidationReport> reports;
    for (int64_t range_slots : {lake::kPassRangeSlots, int64_t{600}}) {
      ValidateOptions options;
      options.range_slots = range_slots;
      reports.push_back(ValidateDir(dir_.path(), options));
    }
    return reports;
  }
  // The mark of `lake` as it stands, but with the payouts' watermark at `from`: the payouts from
  // then on count as changed since it.
  static ValidateMark MarkWithPayoutsFrom(lake::Lake& lake, int64_t from) {
    auto now = CurrentMark(lake);
    EXPECT_TRUE(now.ok()) << now.status().message();
    ValidateMark mark = now.ok() ? *now : ValidateMark{};
    mark.watermarks["pdr_payouts"] = from;
    return mark;
  }
  // `validate --incremental` of this test's copy against `mark`.
  ValidationReport RunSince(const ValidateMark& mark) {
    ValidateOptions options;
    options.since = mark;
    return ValidateDir(dir_.path(), options);
  }

  static TempDir* built_;
  TempDir dir_;
};

TempDir* ValidateTest::built_ = nullptr;

TEST_F(ValidateTest, CleanFixtureLakePassesEveryCheck) {
  ValidationReport report = Run();
  EXPECT_TRUE(report.Failed().empty()) << Text(report);
  ASSERT_EQ(report.checks.size(), 21u);
  for (const CheckResult& c : report.checks) {
    EXPECT_NE(c.status, CheckStatus::kSkipped) << c.name << ": " << c.note;
  }
  // 329 payouts in the file belong to predictions made before the window: informational.
  const CheckResult& outside = Get(report, "payouts_without_prediction_outside_window");
  EXPECT_EQ(outside.status, CheckStatus::kInfo);
  EXPECT_EQ(outside.count, 329);
  EXPECT_EQ(outside.examples.rows.size(), 5u);
  // Every slot a prediction refers to is there; the 1h feeds have slots 3600 s apart: no empty
  // epoch when measured with their own epoch.
  EXPECT_EQ(Get(report, "slot_gaps").count, 0);
  EXPECT_EQ(Get(report, "epochs_without_slot").status, CheckStatus::kInfo);
  EXPECT_EQ(Get(report, "epochs_without_slot").count, 0);
  EXPECT_EQ(Get(report, "raw_rows_at_watermark").status, CheckStatus::kInfo);
  EXPECT_EQ(Get(report, "raw_rows_at_watermark").count, 0);
  EXPECT_NE(Text(report).find("validate: all 18 checks passed (3 informational)"),
            std::string::npos)
      << Text(report);
}

TEST_F(ValidateTest, DuplicateIdsFireInRawAndBuiltTables) {
  // No index refuses a copy (lake::kUnkeyedTables): the writes keep IDs unique, validate checks.
  Corrupt(
      "INSERT INTO pdr_truevals SELECT * FROM pdr_truevals ORDER BY ID "
      "LIMIT 1; INSERT INTO bronze_pdr_predictions SELECT * FROM bronze_pdr_predictions ORDER "
      "BY ID LIMIT 1");
  ValidationReport report = Run();
  const CheckResult& c = Get(report, "duplicate_ids");
  EXPECT_EQ(c.status, CheckStatus::kFail);
  EXPECT_EQ(c.count, 2);
  ASSERT_EQ(c.examples.rows.size(), 2u);
  EXPECT_EQ(c.examples.columns, (std::vector<std::string>{"table_name", "ID", "copies"}));
  EXPECT_EQ(c.examples.rows[0][0], "bronze_pdr_predictions");
  EXPECT_EQ(c.examples.rows[1][0], "pdr_truevals");
  EXPECT_EQ(c.examples.rows[1][2], "2");
  EXPECT_EQ(report.Failed().front(), "duplicate_ids");
}

TEST_F(ValidateTest, RawRowsOutsideTheirWatermarkFire) {
  Corrupt("INSERT INTO pdr_subscriptions (ID, timestamp) VALUES ('late', " +
          std::to_string(kFixtureEndMs + 1) + "), ('early', " +
          std::to_string(kFixtureStartMs - 1) + ")");
  ValidationReport report = Run();
  const CheckResult& c = Get(report, "raw_rows_outside_watermark");
  EXPECT_EQ(c.status, CheckStatus::kFail);
  EXPECT_EQ(c.count, 2);
  ASSERT_EQ(c.examples.rows.size(), 2u);
  EXPECT_EQ(c.examples.rows[0][1], "early");
  EXPECT_EQ(c.examples.rows[1][1], "late");
  EXPECT_EQ(c.examples.rows[1][4], std::to_string(kFixtureEndMs));
  EXPECT_EQ(report.Failed(), std::vector<std::string>{"raw_rows_outside_watermark"});
}

TEST_F(ValidateTest, RawRowsExactlyAtTheWatermarkAreInformational) {
  // What a fetch interrupted inside a run of equal timestamps leaves: rows at the watermark.
  Corrupt("INSERT INTO pdr_payouts (ID, timestamp) VALUES ('boundary', " +
          std::to_string(kFixtureEndMs) + ")");
  ValidationReport report = Run();
  EXPECT_TRUE(report.Failed().empty()) << Text(report);
  const CheckResult& at = Get(report, "raw_rows_at_watermark");
  EXPECT_EQ(at.status, CheckStatus::kInfo);
  EXPECT_EQ(at.count, 1);
  ASSERT_EQ(at.examples.rows.size(), 1u);
  EXPECT_EQ(at.examples.rows[0][1], "boundary");
}

TEST_F(ValidateTest, RawRowsOfATableWithoutWatermarkFire) {
  Corrupt("DELETE FROM predlake_watermarks WHERE table_name = 'pdr_slots'");
  ValidationReport report = Run();
  const CheckResult& c = Get(report, "raw_rows_outside_watermark");
  EXPECT_EQ(c.status, CheckStatus::kFail);
  EXPECT_EQ(c.count, 260);
}

TEST_F(ValidateTest, BuiltRowsPastTheCheckpointFire) {
  const std::string c = std::to_string(kFixtureEndMs);
  Corrupt("UPDATE bronze_pdr_predictions SET timestamp = " + c +
          " WHERE ID = (SELECT min(ID) FROM bronze_pdr_predictions); UPDATE bronze_pdr_slots SET "
          "last_event_timestamp = " +
          c + " + 5 WHERE ID = (SELECT min(ID) FROM bronze_pdr_slots)");
  ValidationReport report = Run();
  const CheckResult& check = Get(report, "built_rows_past_checkpoint");
  EXPECT_EQ(check.status, CheckStatus::kFail);
  EXPECT_EQ(check.count, 2);
  ASSERT_EQ(check.examples.rows.size(), 2u);
  EXPECT_EQ(check.examples.rows[0][0], "bronze_pdr_predictions");
  EXPECT_EQ(check.examples.rows[1][0], "bronze_pdr_slots");
}

TEST_F(ValidateTest, BuiltRowsWithoutACheckpointFire) {
  Corrupt("DELETE FROM predlake_checkpoint");
  ValidationReport report = Run();
  const CheckResult& check = Get(report, "built_rows_past_checkpoint");
  EXPECT_EQ(check.status, CheckStatus::kFail);
  EXPECT_GT(check.count, 2369);
  EXPECT_NE(check.note.find("no checkpoint"), std::string::npos);
}

TEST_F(ValidateTest, CheckpointPastTheFrontierFires) {
  Corrupt("UPDATE predlake_watermarks SET watermark_ms = " +
          std::to_string(kFixtureEndMs - 3600000) + " WHERE table_name = 'pdr_payouts'");
  ValidationReport report = Run();
  const CheckResult& c = Get(report, "checkpoint_past_frontier");
  EXPECT_EQ(c.status, CheckStatus::kFail);
  EXPECT_EQ(c.count, 1);
  ASSERT_EQ(c.examples.rows.size(), 1u);
  EXPECT_EQ(c.examples.rows[0][0], "2024-07-26T02:00:00Z");
  EXPECT_EQ(c.examples.rows[0][1], "2024-07-26T01:00:00Z");
  EXPECT_EQ(c.examples.rows[0][2], "pdr_payouts");
}

TEST_F(ValidateTest, SlotGapsFireForASlotItsPredictionsProve) {
  // A 5m slot with predictions deleted from the middle of a feed: one missing slot, and one empty
  // epoch for the informational calendar check.
  Corrupt(
      "DELETE FROM pdr_slots WHERE ID = '0x18f54cc21b7a2fdd011bea06bba7801b280e3151-1721955600'");
  ValidationReport report = Run();
  const CheckResult& c = Get(report, "slot_gaps");
  EXPECT_EQ(c.status, CheckStatus::kFail);
  EXPECT_EQ(c.count, 1);
  ASSERT_EQ(c.examples.rows.size(), 1u);
  EXPECT_EQ(c.examples.columns, (std::vector<std::string>{"feed", "slot", "predictions"}));
  EXPECT_EQ(c.examples.rows[0][0], "0x18f54cc21b7a2fdd011bea06bba7801b280e3151");
  EXPECT_EQ(c.examples.rows[0][1], "1721955600");
  EXPECT_GT(std::stoi(c.examples.rows[0][2].value_or("0")), 0);
  const CheckResult& e = Get(report, "epochs_without_slot");
  EXPECT_EQ(e.status, CheckStatus::kInfo);
  EXPECT_EQ(e.count, 1);
  ASSERT_EQ(e.examples.rows.size(), 1u);
  EXPECT_EQ(e.examples.rows[0][0], "0x18f54cc21b7a2fdd011bea06bba7801b280e3151");
  EXPECT_EQ(e.examples.rows[0][1], "300");
  EXPECT_EQ(e.examples.rows[0][2], "1721955300");
  EXPECT_EQ(e.examples.rows[0][3], "1721955900");
  EXPECT_EQ(e.examples.rows[0][4], "1");
  EXPECT_EQ(report.Failed(), std::vector<std::string>{"slot_gaps"});
}

TEST_F(ValidateTest, EpochsWithoutASlotAreNoFault) {
  // A sparse feed: epochs that nobody predicted have no slot entity at all. Remove every trace of
  // one 5m slot (its slot, predictions, payouts and trueval): the lake is complete, only the
  // calendar has a hole.
  const std::string slot = "'0x18f54cc21b7a2fdd011bea06bba7801b280e3151-1721955600'";
  Corrupt("DELETE FROM pdr_slots WHERE ID = " + slot +
          "; DELETE FROM pdr_truevals WHERE ID = " + slot +
          "; DELETE FROM pdr_predictions WHERE ID LIKE "
          "'0x18f54cc21b7a2fdd011bea06bba7801b280e3151-1721955600-%'; DELETE FROM pdr_payouts "
          "WHERE ID LIKE '0x18f54cc21b7a2fdd011bea06bba7801b280e3151-1721955600-%'");
  {
    auto lake = OpenTestLake(dir_.path());
    ASSERT_NE(lake, nullptr);
    auto run = lake->BeginRun("etl rebuild");
    ASSERT_TRUE(run.ok()) << run.status().message();
    auto r = etl::Rebuild(*lake, *run, {});
    ASSERT_TRUE(r.ok()) << r.status().message();
  }
  ValidationReport report = Run();
  EXPECT_TRUE(report.Failed().empty()) << Text(report);
  EXPECT_EQ(Get(report, "slot_gaps").count, 0);
  EXPECT_EQ(Get(report, "epochs_without_slot").count, 1);
}

TEST_F(ValidateTest, EpochsWithoutSlotUseTheContractsEpochFirstAndIgnoreSlotsOutsideTheWindow) {
  // With pdr_contracts saying 150 s, a 5m feed's 300 s steps are empty epochs, but slots outside
  // the covered window are not looked at at all.
  Corrupt(
      "INSERT INTO pdr_contracts (ID, seconds_per_epoch) VALUES "
      "('0x18f54cc21b7a2fdd011bea06bba7801b280e3151', 150); INSERT INTO pdr_slots (ID, "
      "timestamp, slot) VALUES ('0x18f54cc21b7a2fdd011bea06bba7801b280e3151-1721970000', "
      "1721970000000, 1721970000)");
  ValidationReport report = Run();
  const CheckResult& c = Get(report, "epochs_without_slot");
  // Every 300 s step of that feed is now one missing 150 s epoch: 23 gaps.
  EXPECT_EQ(c.status, CheckStatus::kInfo);
  EXPECT_EQ(c.count, 23);
  ASSERT_FALSE(c.examples.rows.empty());
  EXPECT_EQ(c.examples.rows[0][1], "150");
  EXPECT_EQ(Get(report, "slot_gaps").count, 0);
  EXPECT_EQ(Get(report, "raw_rows_outside_watermark").count, 1);
}

TEST_F(ValidateTest, PayoutsWithoutTheirPredictionInsideTheWindowFire) {
  const std::string id =
      "0x18f54cc21b7a2fdd011bea06bba7801b280e3151-1721955600-"
      "0x35842372c513f8f217b968adc57a9296ba573d5c";
  Corrupt("DELETE FROM pdr_predictions WHERE ID = '" + id + "'");
  ValidationReport report = Run();
  const CheckResult& inside = Get(report, "payouts_without_prediction");
  EXPECT_EQ(inside.status, CheckStatus::kFail);
  EXPECT_EQ(inside.count, 1);
  ASSERT_EQ(inside.examples.rows.size(), 1u);
  EXPECT_EQ(inside.examples.rows[0][0], id);
  const CheckResult& outside = Get(report, "payouts_without_prediction_outside_window");
  EXPECT_EQ(outside.status, CheckStatus::kInfo);
  EXPECT_EQ(outside.count, 329);
}

TEST_F(ValidateTest, BronzePayoutWithNullFieldsFiresExceptForCanceledSlots) {
  Corrupt(
      "UPDATE bronze_pdr_predictions SET predvalue = NULL WHERE ID = (SELECT min(ID) FROM "
      "bronze_pdr_predictions WHERE payout IS NOT NULL); UPDATE bronze_pdr_predictions SET "
      "truevalue = NULL, status = 'canceled' WHERE ID = (SELECT max(ID) FROM "
      "bronze_pdr_predictions WHERE payout IS NOT NULL)");
  ValidationReport report = Run();
  const CheckResult& c = Get(report, "bronze_payout_fields_null");
  EXPECT_EQ(c.status, CheckStatus::kFail);
  EXPECT_EQ(c.count, 1);
  ASSERT_EQ(c.examples.rows.size(), 1u);
  EXPECT_EQ(c.examples.rows[0][3], std::nullopt);
}

TEST_F(ValidateTest, BuiltRowsWithoutPairOrTimeframeFire) {
  // A feed whose metadata neither its NFT data nor the fallback gave leaves NULLs in every built
  // table that names the feed.
  Corrupt(
      "UPDATE bronze_pdr_predictions SET pair = NULL WHERE ID = (SELECT min(ID) FROM "
      "bronze_pdr_predictions); UPDATE gold_feed_daily SET timeframe = NULL WHERE contract = "
      "(SELECT min(contract) FROM gold_feed_daily) AND day = (SELECT min(day) FROM "
      "gold_feed_daily)");
  ValidationReport report = Run();
  const CheckResult& c = Get(report, "built_rows_without_feed");
  EXPECT_EQ(c.status, CheckStatus::kFail);
  EXPECT_EQ(c.count, 2);
  ASSERT_EQ(c.examples.rows.size(), 2u);
  EXPECT_EQ(c.examples.rows[0][0], "bronze_pdr_predictions");
  EXPECT_EQ(c.examples.rows[1][0], "gold_feed_daily");
}

TEST_F(ValidateTest, BronzeRawParityFiresBothWays) {
  Corrupt(
      "DELETE FROM bronze_pdr_predictions WHERE ID = (SELECT min(ID) FROM "
      "bronze_pdr_predictions); INSERT INTO bronze_pdr_predictions (ID, slot, timestamp, "
      "last_event_timestamp) VALUES ('phantom', 1721955600, 1721955000000, 1721955000000)");
  ValidationReport report = Run();
  const CheckResult& c = Get(report, "bronze_raw_parity");
  EXPECT_EQ(c.status, CheckStatus::kFail);
  EXPECT_EQ(c.count, 2);
  ASSERT_EQ(c.examples.rows.size(), 2u);
  EXPECT_EQ(c.examples.rows[0][0], "missing from bronze");
  EXPECT_EQ(c.examples.rows[1][0], "not in raw");
  EXPECT_EQ(c.examples.rows[1][1], "phantom");
  EXPECT_NE(c.note.find("2369 raw, 2369 bronze"), std::string::npos) << c.note;
}

// bronze_raw_parity and stale_waiting_updates compare each range's counts and hash sums first:
// damage that keeps every count (a built prediction under another ID of its slot, a payout moved
// to another built row of its slot) is still found.
TEST_F(ValidateTest, DamageThatKeepsTheCountsIsFoundByParityAndStale) {
  Corrupt(
      "UPDATE bronze_pdr_predictions SET ID = ID || '-moved' WHERE ID = (SELECT min(ID) FROM "
      "bronze_pdr_predictions WHERE payout IS NULL); CREATE TEMP TABLE moved AS SELECT (SELECT "
      "max(ID) FROM bronze_pdr_predictions WHERE payout IS NOT NULL) AS paid, (SELECT max(ID) "
      "FROM bronze_pdr_predictions WHERE payout IS NULL) AS unpaid; UPDATE bronze_pdr_predictions "
      "SET payout = CASE WHEN ID = (SELECT paid FROM moved) THEN NULL ELSE (SELECT max(payout) "
      "FROM bronze_pdr_predictions) END WHERE ID IN (SELECT paid FROM moved UNION ALL SELECT "
      "unpaid FROM moved)");
  for (const ValidationReport& report : RunInWeekAndTenMinuteRanges()) {
    const CheckResult& parity = Get(report, "bronze_raw_parity");
    EXPECT_EQ(parity.status, CheckStatus::kFail) << Text(report);
    EXPECT_EQ(parity.count, 2);
    EXPECT_NE(parity.note.find("2369 raw, 2369 bronze"), std::string::npos) << parity.note;
    const CheckResult& stale = Get(report, "stale_waiting_updates");
    EXPECT_EQ(stale.status, CheckStatus::kFail) << Text(report);
    EXPECT_EQ(stale.count, 1);
    ASSERT_EQ(stale.examples.rows.size(), 1u);
    EXPECT_EQ(stale.examples.rows[0][3], "payout not applied");
  }
}

// The certificates that spare duplicate_ids and waiting_updates_maintained their reads vouch only
// for undamaged ranges: copies that replace other rows of their range (every count stays) and
// built rows renamed so that their updates wait (the counts of paid predictions and of slots with
// a trueval stay) are found, in week and in ten-minute ranges.
TEST_F(ValidateTest, DamageThatKeepsTheCountsIsFoundByDuplicatesAndWaiting) {
  Corrupt(
      "CREATE TEMP TABLE b AS SELECT * FROM bronze_pdr_predictions WHERE payout IS NULL ORDER BY "
      "slot, ID LIMIT 2; DELETE FROM bronze_pdr_predictions WHERE ID = (SELECT max(ID) FROM b); "
      "INSERT INTO bronze_pdr_predictions SELECT * FROM b WHERE ID = (SELECT min(ID) FROM b); "
      "CREATE TEMP TABLE y AS SELECT * FROM pdr_payouts ORDER BY slot DESC, ID LIMIT 2; DELETE "
      "FROM pdr_payouts WHERE ID = (SELECT max(ID) FROM y); INSERT INTO pdr_payouts SELECT * FROM "
      "y WHERE ID = (SELECT min(ID) FROM y); "
      "UPDATE bronze_pdr_predictions SET ID = ID || '-moved' WHERE ID = (SELECT max(ID) FROM "
      "bronze_pdr_predictions WHERE payout IS NOT NULL AND ID NOT IN (SELECT ID FROM y)); "
      "UPDATE bronze_pdr_slots SET ID = ID || '-moved' WHERE ID = (SELECT max(ID) FROM "
      "bronze_pdr_slots WHERE trueval_timestamp IS NOT NULL)");
  for (const ValidationReport& report : RunInWeekAndTenMinuteRanges()) {
    const CheckResult& copies = Get(report, "duplicate_ids");
    EXPECT_EQ(copies.status, CheckStatus::kFail) << Text(report);
    EXPECT_EQ(copies.count, 2) << Text(report);
    std::vector<std::string> tables;
    for (const auto& row : copies.examples.rows) tables.push_back(row[0].value_or(""));
    std::sort(tables.begin(), tables.end());
    EXPECT_EQ(tables, (std::vector<std::string>{"bronze_pdr_predictions", "pdr_payouts"}));
    const CheckResult& waiting = Get(report, "waiting_updates_maintained");
    EXPECT_EQ(waiting.status, CheckStatus::kFail) << Text(report);
    EXPECT_EQ(waiting.count, 2) << Text(report);
  }
}

// The full checks join and group one slot range at a time (ValidateOptions::range_slots): ranges
// of ten minutes across the fixture's two hours, with damage in many ranges and in rows without a
// slot, find what the checks over the whole lake at once find.
TEST_F(ValidateTest, TheFullChecksReadInSlotRangesFindWhatOneReadFinds) {
  Corrupt(
      // duplicate_ids: copies early and late and without slot, and a copy without slot of a row
      // with one;
      "INSERT INTO pdr_truevals SELECT * FROM pdr_truevals ORDER BY slot "
      "LIMIT 2; INSERT INTO pdr_truevals SELECT * FROM pdr_truevals ORDER BY slot DESC LIMIT 1; "
      "INSERT INTO pdr_truevals SELECT * REPLACE (NULL AS slot) FROM pdr_truevals ORDER BY slot, "
      "ID LIMIT 1 OFFSET 7; "
      "INSERT INTO bronze_pdr_predictions SELECT * FROM bronze_pdr_predictions WHERE ID IN "
      "(SELECT ID FROM bronze_pdr_predictions ORDER BY slot, ID LIMIT 3); "
      "INSERT INTO bronze_pdr_predictions (ID, slot, timestamp, last_event_timestamp) VALUES "
      "('no-slot', NULL, 1721955000000, 1721955000000), ('no-slot', NULL, 1721955000000, "
      "1721955000000); "
      // slot_gaps: slots of two feeds at both ends;
      "DELETE FROM pdr_slots WHERE ID IN (SELECT ID FROM pdr_slots WHERE ID IN (SELECT "
      "lower(split_part(ID, '-', 1)) || '-' || slot FROM pdr_predictions) ORDER BY slot LIMIT 2); "
      "DELETE FROM pdr_slots WHERE ID = "
      "'0x18f54cc21b7a2fdd011bea06bba7801b280e3151-1721955600'; "
      // payouts_without_prediction: predictions gone across the window, a payout without slot;
      "DELETE FROM pdr_predictions WHERE ID IN (SELECT ID FROM pdr_payouts ORDER BY slot DESC "
      "LIMIT 4) OR ID IN (SELECT ID FROM pdr_payouts WHERE slot > 1721955600 ORDER BY slot LIMIT "
      "3); INSERT INTO pdr_payouts (ID, timestamp) VALUES "
      "('0x18f54cc21b7a2fdd011bea06bba7801b280e3151-1721955600-0x0', 1721955000000); "
      // bronze_raw_parity and stale_waiting_updates: bronze rows gone at both ends, a phantom
      // without slot, updates not applied.
      "DELETE FROM bronze_pdr_predictions WHERE ID IN (SELECT ID FROM bronze_pdr_predictions "
      "WHERE payout IS NOT NULL ORDER BY slot LIMIT 2) OR ID IN (SELECT ID FROM "
      "bronze_pdr_predictions WHERE payout IS NOT NULL ORDER BY slot DESC LIMIT 2); "
      "INSERT INTO bronze_pdr_predictions (ID, slot, timestamp, last_event_timestamp) VALUES "
      "('phantom', NULL, 1721955000000, 1721955000000); "
      "UPDATE bronze_pdr_predictions SET payout = NULL WHERE ID IN (SELECT ID FROM "
      "bronze_pdr_predictions WHERE payout IS NOT NULL ORDER BY slot DESC LIMIT 3); "
      "UPDATE bronze_pdr_slots SET trueval_timestamp = NULL WHERE ID IN (SELECT ID FROM "
      "bronze_pdr_slots WHERE trueval_timestamp IS NOT NULL ORDER BY slot LIMIT 2); "
      // and a prediction, raw and built, stored without its slot, whose payout has one.
      "CREATE TEMP TABLE x AS SELECT ID FROM pdr_payouts WHERE ID IN (SELECT ID FROM "
      "bronze_pdr_predictions WHERE payout IS NOT NULL) ORDER BY slot DESC, ID LIMIT 1 OFFSET 20; "
      "UPDATE pdr_predictions SET slot = NULL WHERE ID IN (FROM x); "
      "UPDATE bronze_pdr_predictions SET slot = NULL WHERE ID IN (FROM x)");
  auto run = [&](int64_t range_slots) {
    ValidateOptions options;
    options.range_slots = range_slots;
    options.max_examples = 100;
    return ValidateDir(dir_.path(), options);
  };
  ValidationReport ranged = run(600);
  ValidationReport once = run(0);
  ASSERT_EQ(ranged.checks.size(), once.checks.size());
  for (size_t i = 0; i < once.checks.size(); ++i) {
    const CheckResult& a = ranged.checks[i];
    const CheckResult& b = once.checks[i];
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.status, b.status) << a.name;
    EXPECT_EQ(a.count, b.count) << a.name;
    EXPECT_EQ(a.note, b.note) << a.name;
    EXPECT_EQ(a.examples.columns, b.examples.columns) << a.name;
    // The same findings, in range order rather than one order over the lake.
    auto sorted = [](std::vector<Row> rows) {
      std::sort(rows.begin(), rows.end());
      return rows;
    };
    EXPECT_EQ(sorted(a.examples.rows), sorted(b.examples.rows)) << a.name;
  }
  // Damage in every one of those checks, some of it in more than one range.
  EXPECT_EQ(Get(once, "duplicate_ids").count, 6) << Text(once);
  EXPECT_EQ(Get(once, "slot_gaps").count, 3) << Text(once);
  EXPECT_EQ(Get(once, "payouts_without_prediction").count, 7) << Text(once);
  EXPECT_EQ(Get(once, "bronze_raw_parity").count, 14) << Text(once);
  EXPECT_EQ(Get(once, "stale_waiting_updates").count, 9) << Text(once);
  // No table has a key on ID (lake::kUnkeyedTables): every one is read.
  EXPECT_EQ(Get(once, "duplicate_ids").note, "");
}

// Incremental duplicate_ids looks for the copies of the changed rows' IDs from their lowest slot
// on and among the rows without a slot: a copy made later of an old row is found (the new copy
// changed, and has the old row's slot), and so is an old copy without a slot of a new row; a copy
// among unchanged rows only by the full validate.
TEST_F(ValidateTest, IncrementalDuplicateIdsFindCopiesOfChangedRows) {
  const int64_t mid = kFixtureStartMs + 3'600'000;
  const std::string m = std::to_string(mid);
  ValidateMark mark;
  {
    auto lake = OpenTestLake(dir_.path());
    ASSERT_NE(lake, nullptr);
    mark = MarkWithPayoutsFrom(*lake, mid);
    // Four copies in pdr_payouts: of a payout from mid on, of an early payout with a timestamp
    // from mid on (both changed), of a payout from mid on without its slot and with an early
    // timestamp (unchanged, but a copy of a changed row), and of an early payout as it was
    // (unchanged).
    Exec(*lake, "INSERT INTO pdr_payouts SELECT * FROM pdr_payouts WHERE timestamp >= " + m +
                    " ORDER BY ID LIMIT 1; "
                    "INSERT INTO pdr_payouts SELECT * REPLACE (" +
                    m + " + 1 AS timestamp) FROM pdr_payouts WHERE timestamp < " + m +
                    " ORDER BY ID LIMIT 1; "
                    "INSERT INTO pdr_payouts SELECT * FROM pdr_payouts WHERE timestamp < " +
                    m +
                    " ORDER BY ID DESC LIMIT 1; "
                    "INSERT INTO pdr_payouts SELECT * REPLACE (NULL AS slot, " +
                    m + " - 1 AS timestamp) FROM pdr_payouts WHERE timestamp >= " + m +
                    " ORDER BY ID DESC LIMIT 1");
  }
  ValidationReport full = Run();
  EXPECT_EQ(Get(full, "duplicate_ids").count, 4) << Text(full);

  ValidationReport incremental = RunSince(mark);
  const CheckResult& c = Get(incremental, "duplicate_ids");
  EXPECT_EQ(c.count, 3) << Text(incremental);
  EXPECT_NE(c.note.find("lowest slot"), std::string::npos) << c.note;
  for (const auto& row : c.examples.rows) EXPECT_EQ(row[0], "pdr_payouts");
}

// Incremental mode checks what the lake's writers changed since the mark: here the built rows an
// `etl drop` + `etl update` rewrote after it, and the payouts fetched after it (the mark saw the
// payouts' watermark at mid). Damage inside that range is found, damage before it only by the full
// validate.
TEST_F(ValidateTest, IncrementalFindsDamageInWhatChangedSinceItsMark) {
  const int64_t mid = kFixtureStartMs + 3'600'000;
  const std::string m = std::to_string(mid);
  ValidateMark mark;
  {
    auto lake = OpenTestLake(dir_.path());
    ASSERT_NE(lake, nullptr);
    mark = MarkWithPayoutsFrom(*lake, mid);
    {
      auto run = lake->BeginRun("etl drop");
      ASSERT_TRUE(run.ok());
      ASSERT_TRUE(etl::Drop(*lake, *run, mid, {}).ok());
    }
    {
      auto run = lake->BeginRun("etl update");
      ASSERT_TRUE(run.ok());
      ASSERT_TRUE(etl::Update(*lake, *run, {}).ok());
    }
    // One damaged row on each side of mid, for two checks.
    auto damage = [&](const std::string& side) {
      Exec(*lake,
           "UPDATE bronze_pdr_predictions SET predvalue = NULL WHERE ID = (SELECT min(ID) FROM "
           "bronze_pdr_predictions WHERE payout IS NOT NULL AND status <> 'canceled' AND "
           "run_id " +
               std::string(side == "<" ? "<= " : "> ") + std::to_string(mark.run_id) +
               " AND timestamp " + side + " " + m +
               "); DELETE FROM pdr_predictions WHERE ID = (SELECT min(y.ID) FROM pdr_payouts AS "
               "y JOIN pdr_predictions AS r USING (ID) WHERE r.timeframe = '5m' AND r.slot * "
               "1000 >= " +
               std::to_string(kFixtureStartMs + 1'200'000) + " AND y.timestamp " + side + " " + m +
               ")");
    };
    damage(">=");
    damage("<");
    // A slot whose trueval disagrees with its candles on each side of the mark's run.
    for (const char* side : {"<=", ">"}) {
      Exec(*lake,
           "UPDATE bronze_pdr_slots SET exchange_init_close = 2, exchange_end_close = 1, "
           "exchange_move = 'down', trueval_agrees = false WHERE ID = (SELECT min(ID) FROM "
           "bronze_pdr_slots WHERE truevalue IS NOT NULL AND run_id " +
               std::string(side) + " " + std::to_string(mark.run_id) + ")");
    }
  }
  ExpectCounts(Run(), {{"bronze_payout_fields_null", 2},
                       {"payouts_without_prediction", 2},
                       {"trueval_vs_exchange", 2}});

  ValidationReport incremental = RunSince(mark);
  const CheckResult& fields = Get(incremental, "bronze_payout_fields_null");
  EXPECT_EQ(fields.count, 1) << Text(incremental);
  ASSERT_EQ(fields.examples.rows.size(), 1u);
  EXPECT_GE(std::stoll(*fields.examples.rows[0][1]) * 1000, mid - 600'000);
  const CheckResult& payouts = Get(incremental, "payouts_without_prediction");
  EXPECT_EQ(payouts.count, 1) << Text(incremental);
  ASSERT_EQ(payouts.examples.rows.size(), 1u);
  EXPECT_GE(std::stoll(*payouts.examples.rows[0][2]), mid);
  EXPECT_NE(fields.note.find("incremental"), std::string::npos) << fields.note;
  EXPECT_EQ(Get(incremental, "waiting_updates_maintained").status, CheckStatus::kSkipped);
  const CheckResult& exchange = Get(incremental, "trueval_vs_exchange");
  EXPECT_EQ(exchange.count, 1) << Text(incremental);
  EXPECT_NE(exchange.note.find("incremental"), std::string::npos) << exchange.note;
  EXPECT_EQ(incremental.Failed(),
            (std::vector<std::string>{"payouts_without_prediction", "bronze_payout_fields_null",
                                      "trueval_vs_exchange"}));

  // The mark round-trips through its JSON; other text is no mark.
  auto parsed = ValidateMark::FromJson(mark.ToJson());
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->run_id, mark.run_id);
  EXPECT_EQ(parsed->checkpoint_ms, mark.checkpoint_ms);
  EXPECT_EQ(parsed->watermarks, mark.watermarks);
  EXPECT_FALSE(ValidateMark::FromJson("not json"));
  EXPECT_FALSE(ValidateMark::FromJson("{\"run_id\": \"x\"}"));
}

// Incremental slot_gaps, raw_rows_outside_watermark and duplicate_ids read the change with
// constant bounds on `slot` and `timestamp` (so that their cost follows the change, not the lake):
// damage in the change is found, damage before it only by the full validate, and rows past the
// watermark or before the start are found either way.
TEST_F(ValidateTest, IncrementalSlotGapsRawRowsAndCandleCopiesFollowTheChange) {
  const int64_t mid = kFixtureStartMs + 3'600'000;
  const std::string m = std::to_string(mid);
  const std::string stream = "pdr_ohlcv:binance:BTC/USDT:5m";
  const int64_t candles_end = kFixtureStartMs + 7'200'000;
  ValidateMark mark;
  {
    auto lake = OpenTestLake(dir_.path());
    ASSERT_NE(lake, nullptr);
    Exec(*lake,
         "INSERT INTO pdr_ohlcv SELECT 'binance|BTC/USDT|5m|' || t, 'binance', "
         "'BTC/USDT', '5m', t, 1, 1, 1, 1, 1 FROM range(" +
             std::to_string(kFixtureStartMs) + ", " + std::to_string(candles_end) +
             ", 300000) AS r(t); INSERT INTO predlake_watermarks VALUES ('" + stream + "', " +
             std::to_string(kFixtureStartMs) + ", " + std::to_string(candles_end) + ", 1, 0)");
    auto now = CurrentMark(*lake);
    ASSERT_TRUE(now.ok()) << now.status().message();
    mark = *now;
    for (const char* table : {"pdr_predictions", "pdr_slots"}) mark.watermarks[table] = mid;
    mark.watermarks[stream] = mid;
    // A slot its predictions prove, deleted after mid and before it.
    for (const std::string& range :
         {"p.slot * 1000 >= " + std::to_string(mid + 600'000),
          "p.slot * 1000 < " + std::to_string(kFixtureStartMs + 1'800'000) + " AND p.timestamp < " +
              m}) {
      Exec(*lake,
           "DELETE FROM pdr_slots WHERE ID = (SELECT min(s.ID) FROM pdr_slots AS s JOIN "
           "pdr_predictions AS p ON lower(s.ID) = lower(p.contract) || '-' || p.slot "
           "WHERE " +
               range + ")");
    }
    // A prediction past its table's watermark and one before its start, both without a slot.
    for (const char* at :
         {"'late-' || p.ID AS ID, watermark_ms + 1", "'early-' || p.ID AS ID, start_ms - 1"}) {
      Exec(*lake, std::string("INSERT INTO pdr_predictions SELECT p.* REPLACE (") + at +
                      " AS timestamp, NULL AS slot) FROM (FROM pdr_predictions ORDER BY ID LIMIT "
                      "1) AS p, (SELECT start_ms, watermark_ms FROM predlake_watermarks WHERE "
                      "table_name = 'pdr_predictions') AS w(start_ms, watermark_ms)");
    }
    // A copy of a candle after mid and of one before it.
    Exec(*lake, "INSERT INTO pdr_ohlcv FROM pdr_ohlcv WHERE timestamp IN (" +
                    std::to_string(mid + 300'000) + ", " +
                    std::to_string(kFixtureStartMs + 300'000) + ")");
  }
  ExpectCounts(Run(), {{"slot_gaps", 2}, {"raw_rows_outside_watermark", 2}, {"duplicate_ids", 2}});

  ValidationReport incremental = RunSince(mark);
  const CheckResult& gaps = Get(incremental, "slot_gaps");
  EXPECT_EQ(gaps.count, 1) << Text(incremental);
  ASSERT_EQ(gaps.examples.rows.size(), 1u);
  EXPECT_GE(std::stoll(*gaps.examples.rows[0][1]) * 1000, mid + 600'000);
  EXPECT_EQ(Get(incremental, "raw_rows_outside_watermark").count, 2) << Text(incremental);
  const CheckResult& copies = Get(incremental, "duplicate_ids");
  EXPECT_EQ(copies.count, 1) << Text(incremental);
  ASSERT_EQ(copies.examples.rows.size(), 1u);
  EXPECT_EQ(copies.examples.rows[0][0], "pdr_ohlcv");
  EXPECT_EQ(copies.examples.rows[0][1], "binance|BTC/USDT|5m|" + std::to_string(mid + 300'000));

  // A stream the mark did not know counts as changed from its start: both copies are found.
  mark.watermarks.erase(stream);
  EXPECT_EQ(Get(RunSince(mark), "duplicate_ids").count, 2);
}

// A rebuild since the mark changes every built row, and in chunks it leaves the first chunk's end
// as its first run's checkpoint: `validate --incremental` then checks the whole processed window
// from the start (it began from the first chunk's end before: a bronze row lost in the first chunk
// went unseen), and reads it one slot range at a time as the full checks do (it read the window,
// and grouped every changed ID, in one query before: a whole-lake join and group, past 600 MB on a
// 1.5M lake after rebuilds): ten-minute ranges find what one read finds. (The fixture lake is too
// small for a memory cap to tell the two apart: DuckDB's own overheads fail first.)
TEST_F(ValidateTest, IncrementalAfterAChunkedRebuildChecksTheWholeWindowInRanges) {
  const int64_t first_chunk_end = kFixtureStartMs + 1'800'000;
  ValidateMark mark;
  {
    auto lake = OpenTestLake(dir_.path());
    ASSERT_NE(lake, nullptr);
    auto now = CurrentMark(*lake);
    ASSERT_TRUE(now.ok()) << now.status().message();
    mark = *now;
    // A rebuild in chunks, as jobs::RunEtl runs one: `etl rebuild` of the first chunk, then an
    // `etl update` of the rest.
    {
      auto run = lake->BeginRun("etl rebuild");
      ASSERT_TRUE(run.ok());
      etl::UpdateOptions o;
      o.to_ms = first_chunk_end;
      auto r = etl::Rebuild(*lake, *run, o);
      ASSERT_TRUE(r.ok()) << r.status().message();
    }
    {
      auto run = lake->BeginRun("etl update");
      ASSERT_TRUE(run.ok());
      auto r = etl::Update(*lake, *run, {});
      ASSERT_TRUE(r.ok()) << r.status().message();
    }
    // Damage in the first chunk: a bronze prediction lost, another copied.
    Exec(*lake,
         "DELETE FROM bronze_pdr_predictions WHERE ID = (SELECT min(ID) FROM "
         "bronze_pdr_predictions WHERE timestamp < " +
             std::to_string(first_chunk_end) +
             "); INSERT INTO bronze_pdr_predictions SELECT * FROM bronze_pdr_predictions WHERE "
             "ID = (SELECT max(ID) FROM bronze_pdr_predictions WHERE timestamp < " +
             std::to_string(first_chunk_end) + ")");
  }
  auto run = [&](int64_t range_slots) {
    ValidateOptions options;
    options.since = mark;
    options.range_slots = range_slots;
    options.max_examples = 100;
    return ValidateDir(dir_.path(), options);
  };
  ValidationReport ranged = run(600);
  ValidationReport once = run(0);
  const CheckResult& parity = Get(ranged, "bronze_raw_parity");
  EXPECT_EQ(parity.count, 1) << Text(ranged);
  EXPECT_NE(parity.note.find("in [" + FormatTime(kFixtureStartMs) + ", "), std::string::npos)
      << parity.note;
  EXPECT_EQ(Get(ranged, "duplicate_ids").count, 1) << Text(ranged);
  ASSERT_EQ(ranged.checks.size(), once.checks.size());
  for (size_t i = 0; i < once.checks.size(); ++i) {
    const CheckResult& a = ranged.checks[i];
    const CheckResult& b = once.checks[i];
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.status, b.status) << a.name;
    EXPECT_EQ(a.count, b.count) << a.name;
    EXPECT_EQ(a.note, b.note) << a.name;
  }
}

// The waiting updates every publish maintains are what the computation from raw finds; a damaged
// maintained set fails its check.
TEST_F(ValidateTest, MaintainedWaitingUpdatesMatchRawOrFail) {
  EXPECT_EQ(Get(Run(), "waiting_updates_maintained").status, CheckStatus::kPass);
  Corrupt("DELETE FROM predlake_waiting WHERE ID = (SELECT min(ID) FROM predlake_waiting)");
  ValidationReport report = Run();
  const CheckResult& c = Get(report, "waiting_updates_maintained");
  EXPECT_EQ(c.status, CheckStatus::kFail) << Text(report);
  EXPECT_EQ(c.count, 1);
}

TEST_F(ValidateTest, UpdatesNotAppliedToTheirRowFireAsStale) {
  Corrupt(
      "UPDATE bronze_pdr_predictions SET payout = NULL WHERE ID = (SELECT min(ID) FROM "
      "bronze_pdr_predictions WHERE payout IS NOT NULL); UPDATE bronze_pdr_slots SET "
      "trueval_timestamp = NULL WHERE ID = (SELECT min(ID) FROM bronze_pdr_slots WHERE "
      "trueval_timestamp IS NOT NULL)");
  ValidationReport report = Run();
  const CheckResult& c = Get(report, "stale_waiting_updates");
  EXPECT_EQ(c.status, CheckStatus::kFail);
  EXPECT_EQ(c.count, 2);
  ASSERT_EQ(c.examples.rows.size(), 2u);
  std::vector<std::string> problems;
  for (const auto& row : c.examples.rows) problems.push_back(row[3].value_or(""));
  std::sort(problems.begin(), problems.end());
  EXPECT_EQ(problems, (std::vector<std::string>{"payout not applied", "trueval not applied"}));
}

TEST_F(ValidateTest, UpdatesWaitingForARowThatIsInRawFireAsStale) {
  Corrupt(
      "DELETE FROM bronze_pdr_predictions WHERE ID = (SELECT min(ID) FROM "
      "bronze_pdr_predictions WHERE payout IS NOT NULL)");
  ValidationReport report = Run();
  const CheckResult& c = Get(report, "stale_waiting_updates");
  EXPECT_EQ(c.status, CheckStatus::kFail);
  EXPECT_EQ(c.count, 1);
  ASSERT_EQ(c.examples.rows.size(), 1u);
  EXPECT_EQ(c.examples.rows[0][3], "prediction not built");
}

TEST_F(ValidateTest, OrphanStagingTablesFire) {
  Corrupt("CREATE TABLE etl_stage_payout_events AS SELECT 1 AS x UNION ALL SELECT 2");
  ValidationReport report = Run();
  const CheckResult& c = Get(report, "orphan_staging_tables");
  EXPECT_EQ(c.status, CheckStatus::kFail);
  EXPECT_EQ(c.count, 1);
  ASSERT_EQ(c.examples.rows.size(), 1u);
  EXPECT_EQ(c.examples.rows[0][0], "etl_stage_payout_events");
  EXPECT_EQ(c.examples.rows[0][1], "2");
}

TEST_F(ValidateTest, TruevalsThatDisagreeWithTheExchangeFire) {
  // The fixtures have no candles: nothing is checked, and the check passes. Slots whose trueval
  // disagrees with their candles (tests/e2e/ohlcv.sh makes them with sim_ss.wrong_truevals) fire;
  // agreeing ones are counted as checked only.
  ValidationReport clean = Run();
  EXPECT_EQ(Get(clean, "trueval_vs_exchange").status, CheckStatus::kPass);
  EXPECT_EQ(Get(clean, "trueval_vs_exchange").note, "0 slots checked against the exchange");
  Corrupt(
      "UPDATE bronze_pdr_slots SET exchange_init_close = 2, exchange_end_close = 1, "
      "exchange_move = 'down', trueval_agrees = (ID IN (SELECT ID FROM bronze_pdr_slots WHERE "
      "truevalue IS NOT NULL ORDER BY ID LIMIT 2)) WHERE ID IN (SELECT ID FROM bronze_pdr_slots "
      "WHERE truevalue IS NOT NULL ORDER BY ID LIMIT 5)");
  ValidationReport report = Run();
  const CheckResult& c = Get(report, "trueval_vs_exchange");
  EXPECT_EQ(c.status, CheckStatus::kFail);
  EXPECT_EQ(c.count, 3);
  EXPECT_EQ(c.note, "5 slots checked against the exchange");
  ASSERT_EQ(c.examples.rows.size(), 3u);
  EXPECT_EQ(c.examples.rows[0][8], "down");
}

TEST_F(ValidateTest, CandleStreamsBehindOrWithHolesFireAndKnownGapsAreNoted) {
  // A 5m stream covering the fixture's first hour with every candle but 00:10 stored, and a 1h
  // stream whose exchange has failed since long before the frontier.
  const int64_t start = 1721952000000;  // 2024-07-26T00:00:00Z
  const std::string five = "pdr_ohlcv:binance:BTC/USDT:5m";
  const std::string hour = "pdr_ohlcv:binance:ETH/USDT:1h";
  Corrupt(
      "INSERT INTO pdr_ohlcv SELECT 'binance|BTC/USDT|5m|' || t, 'binance', 'BTC/USDT', "
      "'5m', t, 1, 1, 1, 1, 1 FROM range(" +
      std::to_string(start) + ", " + std::to_string(start + 3'600'000) +
      ", 300000) AS r(t) WHERE t <> " + std::to_string(start + 600'000) +
      "; INSERT INTO predlake_watermarks VALUES ('" + five + "', " + std::to_string(start) + ", " +
      std::to_string(start + 3'600'000) + ", 1, 0), ('" + hour + "', " +
      std::to_string(start - 86'400'000) + ", " + std::to_string(start - 86'400'000) +
      ", 1, 0); INSERT INTO predlake_ohlcv_streams VALUES ('" + hour +
      "', 'failing', 'fake exchange: HTTP 451 restricted location', 1, NULL, 2, 1), ('" +
      "pdr_ohlcv:binance:SOL/USDT:5m', 'set_aside', 'HTTP 400 Invalid symbol.', 1, NULL, 2, 1)");
  ValidationReport report = Run();
  const CheckResult& gaps = Get(report, "candle_gaps");
  EXPECT_EQ(gaps.status, CheckStatus::kFail);
  EXPECT_EQ(gaps.count, 1);
  ASSERT_EQ(gaps.examples.rows.size(), 1u);
  EXPECT_EQ(gaps.examples.rows[0][1], std::to_string(start + 600'000));
  const CheckResult& behind = Get(report, "ohlcv_streams_behind");
  EXPECT_EQ(behind.status, CheckStatus::kFail);
  EXPECT_EQ(behind.count, 1);
  ASSERT_EQ(behind.examples.rows.size(), 1u);
  EXPECT_EQ(behind.examples.rows[0][0], hour);
  EXPECT_NE(behind.examples.rows[0][4].value_or("").find("451"), std::string::npos);
  const CheckResult& aside = Get(report, "sources_set_aside");
  EXPECT_EQ(aside.status, CheckStatus::kInfo);
  EXPECT_EQ(aside.count, 1);
  // Recorded as a known gap, the hole is no fault any more; the note counts it.
  Corrupt("INSERT INTO predlake_candle_gaps VALUES ('" + five + "', " +
          std::to_string(start + 600'000) + ", 5, 1)");
  ValidationReport known = Run();
  EXPECT_EQ(Get(known, "candle_gaps").status, CheckStatus::kPass);
  EXPECT_NE(Get(known, "candle_gaps").note.find("1 known gaps"), std::string::npos);
}

TEST_F(ValidateTest, NegativeAmountsFire) {
  EXPECT_EQ(Get(Run(), "negative_amounts").status, CheckStatus::kPass);
  Corrupt(
      "UPDATE pdr_payouts SET payout = -1 WHERE ID IN (SELECT ID FROM pdr_payouts ORDER BY ID "
      "LIMIT 2); UPDATE pdr_truevals SET revenue = -1 WHERE ID IN "
      "(SELECT ID FROM pdr_truevals ORDER BY ID LIMIT 1)");
  ValidationReport report = Run();
  const CheckResult& c = Get(report, "negative_amounts");
  EXPECT_EQ(c.status, CheckStatus::kFail);
  EXPECT_EQ(c.count, 3);
}

TEST_F(ValidateTest, ExamplesAreCappedAndJsonIsOneDocument) {
  Corrupt("DELETE FROM predlake_watermarks WHERE table_name = 'pdr_slots'");
  ValidationReport report = Run();
  std::ostringstream out;
  WriteValidationJson(out, report);
  auto j = nlohmann::json::parse(out.str());
  EXPECT_FALSE(j["ok"].get<bool>());
  EXPECT_EQ(j["failed"], nlohmann::json::array({"raw_rows_outside_watermark"}));
  ASSERT_EQ(j["checks"].size(), 21u);
  const auto& raw = j["checks"][1];
  EXPECT_EQ(raw["name"], "raw_rows_outside_watermark");
  EXPECT_EQ(raw["status"], "fail");
  EXPECT_EQ(raw["count"], 260);
  ASSERT_EQ(raw["examples"].size(), 5u);
  EXPECT_TRUE(raw["examples"][0]["timestamp"].is_number_integer());
  EXPECT_TRUE(raw["examples"][0]["watermark_ms"].is_null());
  EXPECT_NE(Text(report).find("(5 of 260 shown)"), std::string::npos);
  EXPECT_NE(Text(report).find("validate: 1 of 18 checks failed: raw_rows_outside_watermark"),
            std::string::npos);
}

TEST(Validate, BuiltChecksAreSkippedWithoutBuiltTables) {
  TempDir dir;
  {
    auto lake = OpenTestLake(dir.path());
    ASSERT_NE(lake, nullptr);
    testing::LoadFixtures(*lake);
    Exec(*lake,
         "DROP TABLE bronze_pdr_predictions; DROP TABLE bronze_pdr_slots; DROP TABLE "
         "gold_predictoor_daily; DROP TABLE gold_feed_daily; DROP TABLE gold_feed_sales_daily");
  }
  ValidationReport report = ValidateDir(dir.path());
  EXPECT_TRUE(report.Failed().empty()) << Text(report);
  for (const char* name :
       {"built_rows_past_checkpoint", "bronze_payout_fields_null", "built_rows_without_feed",
        "bronze_raw_parity", "stale_waiting_updates", "trueval_vs_exchange"}) {
    EXPECT_EQ(Get(report, name).status, CheckStatus::kSkipped) << name;
  }
  EXPECT_EQ(Get(report, "slot_gaps").status, CheckStatus::kPass);
  EXPECT_NE(Text(report).find("(3 informational, 6 skipped)"), std::string::npos) << Text(report);
}

TEST(Validate, AFailedRunThatFetchedNothingIsNoCleanLake) {
  // The subgraph failed before any table was stored: validate must not say "all checks passed".
  TempDir dir;
  {
    auto lake = OpenTestLake(dir.path());
    ASSERT_NE(lake, nullptr);
    auto run = lake->BeginRun("update");
    ASSERT_TRUE(run.ok());
    (void)run->Fail(Status::Source("reading the indexed head: HTTP 503"));
  }
  ValidationReport report = ValidateDir(dir.path());
  const CheckResult& c = Get(report, "raw_tables_never_fetched");
  EXPECT_EQ(c.status, CheckStatus::kFail);
  EXPECT_EQ(c.count, 5);
  ASSERT_FALSE(c.examples.rows.empty());
  EXPECT_NE(c.examples.rows[0][1].value_or("").find("HTTP 503"), std::string::npos);
  EXPECT_EQ(report.Failed(), std::vector<std::string>{"raw_tables_never_fetched"});
}

TEST(Validate, NewEmptyLakePasses) {
  TempDir dir;
  { ASSERT_NE(OpenTestLake(dir.path()), nullptr); }
  ValidationReport report = ValidateDir(dir.path());
  EXPECT_TRUE(report.Failed().empty()) << Text(report);
  for (const CheckResult& c : report.checks) EXPECT_EQ(c.count, 0) << c.name;
}

}  // namespace
}  // namespace predlake::ops
