// The waiting update events computed from raw in slot ranges (etl::ForEachWaitingSlotRange): over
// three weeks of slots and with events whose slot is NULL, the ranged computation, the maintained
// set a first run computes the same way, and one join of the whole lake agree.
#include "etl/waiting.hpp"

#include <gtest/gtest.h>

#include "etl_test_util.hpp"

namespace predlake::etl::testing {
namespace {

constexpr int64_t kDays = 21;
constexpr int64_t kFirstSlot = 999'900;  // a multiple of the 300 s epoch
constexpr int64_t kDay = 86'400;
constexpr int64_t kEndMs = (kFirstSlot + kDays * kDay) * 1000;

std::string Slot(int64_t day) { return std::to_string(kFirstSlot + day * kDay); }
std::string Ms(int64_t day, int64_t offset_s) {
  return std::to_string((kFirstSlot + day * kDay + offset_s) * 1000);
}

class WaitingRanges : public ::testing::Test {
 protected:
  void SetUp() override {
    lake_ = dir_.Open();
    ASSERT_TRUE(lake_);
    Exec(*lake_,
         "INSERT INTO pdr_contracts VALUES ('0xc', 'BTC/USDT', '5m', 'binance', 300, 1200, 'nft')");
    for (int64_t d = 0; d < kDays; ++d) {
      const std::string s = Slot(d);
      // A prediction of the slot (built, so its payout does not wait) and a claim of a prediction
      // raw does not hold (it waits); a trueval of the slot and one of the next, which has no
      // prediction (it waits).
      Exec(*lake_, "INSERT INTO pdr_predictions VALUES ('0xc-" + s +
                       "-0xa', '0xc', 'BTC/USDT', '5m', NULL, 10, NULL, " + Ms(d, -200) +
                       ", 'binance', NULL, " + s + ", '0xa')");
      Exec(*lake_, "INSERT INTO pdr_payouts VALUES ('0xc-" + s + "-0xa', '0xc', '0xa', " + s +
                       ", " + Ms(d, 500) + ", 20, true, true, 10), ('0xc-" + s +
                       "-0xz', '0xc', '0xz', " + s + ", " + Ms(d, 510) + ", 0, false, true, 3)");
      const std::string next = std::to_string(kFirstSlot + d * kDay + 300);
      Exec(*lake_, "INSERT INTO pdr_truevals VALUES ('0xc-" + s + "', '0xc', " + Ms(d, 320) +
                       ", true, " + s + ", 1, 5, 10), ('0xc-" + next + "', '0xc', " + Ms(d, 620) +
                       ", true, " + next + ", 1, 5, 10)");
    }
    // Events whose slot is NULL: a claim of a built prediction (it does not wait), one of an
    // unknown prediction and a trueval (both wait).
    Exec(*lake_, "INSERT INTO pdr_predictions VALUES ('0xc-" + Slot(5) +
                     "-0xb', '0xc', 'BTC/USDT', '5m', NULL, 4, NULL, " + Ms(5, -100) +
                     ", 'binance', NULL, " + Slot(5) + ", '0xb')");
    Exec(*lake_, "INSERT INTO pdr_payouts VALUES ('0xc-" + Slot(5) + "-0xb', '0xc', '0xb', NULL, " +
                     Ms(5, 700) + ", 8, true, true, 4), ('0xc-" + Slot(9) +
                     "-0xn', '0xc', '0xn', NULL, " + Ms(9, 700) + ", 0, false, true, 1)");
    Exec(*lake_, "INSERT INTO pdr_truevals VALUES ('0xc-" + Slot(12) + "x', '0xc', " + Ms(12, 330) +
                     ", true, NULL, 1, 5, 10)");
    for (std::string_view t : lake::kRawTables) {
      ASSERT_TRUE(lake_->SetWatermark(std::string(t), {0, kEndMs}, 0).ok());
    }
  }

  // One join of the whole lake: waiting.sql as it was before it read slot ranges.
  std::vector<WaitingEvents> WholeJoin() {
    const std::string c = std::to_string(CheckpointMs(*lake_));
    auto r = lake_->conn().Query(
        "SELECT 'pdr_payouts', count(*), min(y.timestamp) FROM pdr_payouts AS y WHERE "
        "y.timestamp < " +
            c +
            " AND NOT EXISTS (SELECT 1 FROM bronze_pdr_predictions AS b WHERE b.ID = y.ID) "
            "UNION ALL SELECT 'pdr_truevals', count(*), min(t.timestamp) FROM pdr_truevals AS t "
            "WHERE t.timestamp < " +
            c +
            " AND NOT EXISTS (SELECT 1 FROM bronze_pdr_slots AS s WHERE s.ID = "
            "split_part(t.ID, '-', 1) || '-' || t.slot)",
        "whole join");
    std::vector<WaitingEvents> out;
    EXPECT_TRUE(r.ok()) << r.status().message();
    if (!r.ok()) return out;
    for (const auto& row : r->ToText()) {
      WaitingEvents w{*row[0], std::stoll(*row[1]), std::nullopt};
      if (row[2]) w.oldest_ms = std::stoll(*row[2]);
      out.push_back(w);
    }
    return out;
  }

  void ExpectAgree(int64_t payouts, int64_t truevals) {
    auto whole = WholeJoin();
    ASSERT_EQ(whole.size(), 2u);
    EXPECT_EQ(whole[0].events, payouts);
    EXPECT_EQ(whole[1].events, truevals);
    auto kept = Waiting(*lake_);
    auto ranged = WaitingFromRaw(*lake_);
    ASSERT_TRUE(kept.ok()) << kept.status().message();
    ASSERT_TRUE(ranged.ok()) << ranged.status().message();
    for (const auto* got : {&*kept, &*ranged}) {
      ASSERT_EQ(got->size(), 2u);
      for (size_t i = 0; i < 2; ++i) {
        EXPECT_EQ((*got)[i].table, whole[i].table);
        EXPECT_EQ((*got)[i].events, whole[i].events) << whole[i].table;
        EXPECT_EQ((*got)[i].oldest_ms, whole[i].oldest_ms) << whole[i].table;
      }
    }
  }

  UpdateOptions To(std::optional<int64_t> to) {
    UpdateOptions o;
    o.to_ms = to;
    o.st_ms = 0;
    return o;
  }

  TempLake dir_{"waiting"};
  std::unique_ptr<lake::Lake> lake_;
};

TEST_F(WaitingRanges, RangedComputationEqualsOneJoinOfTheWholeLake) {
  // The first run computes the set from scratch (waiting_full, in ranges), over three weeks of
  // slots: three ranges and the NULL-slot one.
  auto first = Update(*lake_, To(std::nullopt));
  ASSERT_TRUE(first.ok()) << first.status().message();
  // Every day: the unknown prediction's claim and the trueval of a slot without predictions; and
  // the NULL-slot claim of an unknown prediction and the NULL-slot trueval.
  ExpectAgree(kDays + 1, kDays + 1);

  // Rolled back into the second week and built again: the maintained set follows incrementally,
  // the ranged computation still agrees.
  ASSERT_TRUE(Drop(*lake_, (kFirstSlot + 10 * kDay) * 1000, To(std::nullopt)).ok());
  ExpectAgree(11, 10);  // claims: days 0-9 and the NULL-slot one of day 9; truevals: days 0-9
  ASSERT_TRUE(Update(*lake_, To(std::nullopt)).ok());
  ExpectAgree(kDays + 1, kDays + 1);
}

}  // namespace
}  // namespace predlake::etl::testing
