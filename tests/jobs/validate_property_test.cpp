// A check must never fire on a correct lake: for random schedules of raw updates and ETL updates
// with arbitrary ends, ETL rollbacks and raw drops (each followed by refills), over sparse worlds
// (a few predictoors, so that many epochs have no prediction and no slot), dense ones and one with
// re-submitted predictions (rollbacks between two submissions included), `validate` finds no
// failure after every step.
//
// PREDLAKE_VALIDATE_SEEDS (schedules per world, default 3; 1 under the sanitizers) scales it; a
// schedule has 8 steps, 3 under the sanitizers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>

#include "../raw/raw_test_util.hpp"
#include "etl/etl.hpp"
#include "ops/validate.hpp"
#include "raw/update.hpp"
#include "schedule_steps.hpp"
#include "source/sim/world.hpp"
#include "support/rng.hpp"
#include "support/seeds.hpp"

namespace predlake::jobs {
namespace {

using raw::rawtest::Ms;
using raw::rawtest::TempDir;

int SeedCount() { return test_support::SeedCount("PREDLAKE_VALIDATE_SEEDS", 2, 1); }

using test_support::Rng;

struct World {
  const char* name;
  config::SimConfig config;
  bool has_empty_epochs = false;  // the complete lake has epochs without a slot
  // Re-submitted predictions: every fetch reads a subgraph whose head is the fetch's end (so a
  // fetch between two submissions stores the first), and times between two submissions the lake
  // knows are favoured.
  bool resubmitted = false;
};

World Sparse() {
  // Two predictoors over three pairs: some epochs nobody predicts, and those the trueval bot did
  // not settle either (canceled) have no slot entity at all (seed 4 has two by the end).
  config::SimConfig c;
  c.seed = 4;
  c.start = "2024-07-20";
  c.now = "2024-07-21_12:00";
  c.num_predictoors = 2;
  c.pairs = {"BTC/USDT", "ETH/USDT", "SOL/USDT"};
  return {"sparse", c, true};
}

World Dense() {
  config::SimConfig c = raw::rawtest::SmallWorld("2024-07-25", "2024-07-25_08:00");
  c.seed = 7;
  return {"dense", c, false};
}

World Resubmitted() {
  config::SimConfig c = raw::rawtest::SmallWorld("2024-07-25", "2024-07-25_08:00");
  c.seed = 9;
  c.resubmitted_predictions = 0.3;
  c.indexing_lag_ms = 0;
  return {"resubmitted", c, false, true};
}

int64_t CountOf(lake::Lake& lake, const std::string& sql) {
  auto v = lake.conn().QueryInt(sql, "test");
  EXPECT_TRUE(v.ok()) << v.status().message();
  return v.ok() ? v->value_or(0) : 0;
}

class ValidateProperty : public ::testing::TestWithParam<int> {};

std::string Failures(const ops::ValidationReport& report) {
  std::string out;
  for (const ops::CheckResult& c : report.checks) {
    if (c.status != ops::CheckStatus::kFail) continue;
    out += c.name + " (" + std::to_string(c.count) + ")";
    for (const auto& row : c.examples.rows) {
      out += "\n   ";
      for (const auto& cell : row) {
        out += ' ';
        out += cell.value_or("NULL");
      }
    }
    out += "\n";
  }
  return out;
}

TEST_P(ValidateProperty, NoCheckFiresOnALakeBuiltByACorrectSchedule) {
  int between = 0;  // rollbacks between two submissions of a prediction the lake knows both of
  for (const World& world : {Sparse(), Dense(), Resubmitted()}) {
    SCOPED_TRACE(world.name);
    SCOPED_TRACE(test_support::SeedNote(GetParam()));
    const uint64_t seed = test_support::PropertySeed(GetParam());
    Rng rng(seed * 7919 + (world.name[0] == 's' ? 1 : 2));
    auto engine = raw::rawtest::MakeEngine(world.config);
    ASSERT_NE(engine, nullptr);
    const int64_t start = Ms(world.config.start);
    const int64_t head = engine->HeadMs();
    raw::rawtest::NoSleep sleep;
    TempDir dir;
    auto lake = raw::rawtest::OpenTestLake(dir.path());
    ASSERT_NE(lake, nullptr);

    const std::string versions(lake::kPredictionVersionsTable.name);
    auto random_time = [&]() {
      const int64_t n = CountOf(*lake, "SELECT count(*) FROM " + versions);
      if (world.resubmitted && n > 0 && rng.Chance(50)) {
        const std::string row = " FROM " + versions + " ORDER BY ID LIMIT 1 OFFSET " +
                                std::to_string(rng.Uniform(0, n - 1));
        return rng.Uniform(CountOf(*lake, "SELECT timestamp" + row) + 1,
                           CountOf(*lake, "SELECT superseded_at" + row));
      }
      return start + rng.Uniform(0, (head - start) / 60'000) * 60'000;
    };
    auto versions_around = [&](int64_t t) {
      return CountOf(*lake, "SELECT count(*) FROM " + versions + " WHERE timestamp < " +
                                std::to_string(t) + " AND superseded_at >= " + std::to_string(t));
    };
    int64_t seen_head = 0;
    auto fetch = [&](int64_t end_ms) {
      raw::UpdateOptions o;
      o.start_ms = start;
      o.end_ms = end_ms;
      o.sleeper = &sleep;
      std::shared_ptr<const sim::Engine> at = engine;
      if (world.resubmitted) {
        // The subgraph as of the fetch: its head never goes back (raw::Update refuses an older
        // head than the lake's newest), but after a raw drop, which forgets it.
        config::SimConfig c = world.config;
        seen_head = std::max(seen_head, std::min(end_ms, head));
        c.now = std::to_string(seen_head);
        at = raw::rawtest::MakeEngine(c);
      }
      auto r = raw::rawtest::RunUpdate(*lake, o, raw::rawtest::SimFactory(at), nullptr);
      ASSERT_TRUE(r.ok()) << r.status().message();
    };
    auto build = [&](std::optional<int64_t> to_ms) {
      auto run = lake->BeginRun("etl update");
      ASSERT_TRUE(run.ok()) << run.status().message();
      etl::UpdateOptions o;
      o.to_ms = to_ms;
      o.st_ms = start;
      auto r = etl::Update(*lake, *run, o);
      ASSERT_TRUE(r.ok()) << r.status().message();
    };

    auto expect_valid = [&](const std::string& what) {
      auto report = ops::Validate(*lake);
      ASSERT_TRUE(report.ok()) << report.status().message();
      EXPECT_TRUE(report->Failed().empty())
          << world.name << " seed " << seed << " (" << what << "): " << Failures(*report);
    };
    std::optional<sim::Prediction> found;
    // A fetch with its head between the two submissions of `found` (it stores the first version),
    // then one past them.
    auto fetch_between_submissions = [&]() {
      fetch(found->first_ts * 1000 + 1000);
      fetch(found->ts * 1000 + 60'000);
      if (::testing::Test::HasFatalFailure()) return;
      ASSERT_GT(CountOf(*lake, "SELECT count(*) FROM " + versions), 0)
          << "no fetch fell between two submissions";
    };
    if (world.resubmitted) {
      const sim::World& w = engine->world();
      for (const sim::Feed& f : w.feeds()) {
        for (int64_t slot = f.first_slot; !found && slot * 1000 < head; slot += f.epoch) {
          for (int p : f.predictoors) {
            auto made = w.MakePrediction(f.index, slot, p);
            if (made && made->resubmitted && made->first_ts * 1000 > start + 3'600'000 &&
                made->ts >= made->first_ts + 2) {
              found = made;
              break;
            }
          }
        }
      }
      ASSERT_TRUE(found) << "the world has no re-submitted prediction";
      fetch_between_submissions();
      if (::testing::Test::HasFatalFailure()) return;
    }
    // Fewer under the sanitizers: each step runs the same fetch, build, drop and validate code, and
    // what the sanitizers can find there is a memory error, not a schedule (the release tree's).
    const int steps = test_support::kSanitized ? 3 : 8;
    std::optional<ops::ValidateMark> mark;
    for (int step = 0; step < steps; ++step) {
      std::string what;
      const int64_t t = random_time();
      switch (rng.Uniform(0, 5)) {
        case 0:
        case 1:
          what = "raw update --to " + FormatTime(t);
          fetch(t);
          break;
        case 2:
          what = "etl update --to " + FormatTime(t);
          if (lake->Watermarks()->size() == lake::kRawTables.size()) build(t);
          break;
        case 3: {
          what = "etl drop --from " + FormatTime(t);
          between += versions_around(t) > 0 && CountOf(*lake,
                                                       "SELECT count(*) FROM predlake_checkpoint "
                                                       "WHERE checkpoint_ms > " +
                                                           std::to_string(t)) > 0
                         ? 1
                         : 0;
          ASSERT_TRUE(EtlDropFrom(*lake, t));
          break;
        }
        case 4: {
          what = "raw drop --from " + FormatTime(t) + ", then raw update";
          between += versions_around(t) > 0 ? 1 : 0;
          ASSERT_TRUE(RawDropFrom(*lake, t));
          seen_head = 0;
          fetch(random_time());
          break;
        }
        default:
          what = "update to the head";
          fetch(head);
          build(std::nullopt);
          break;
      }
      if (::testing::Test::HasFatalFailure()) return;
      auto report = ops::Validate(*lake);
      ASSERT_TRUE(report.ok()) << report.status().message();
      EXPECT_TRUE(report->Failed().empty()) << world.name << " seed " << seed << " step " << step
                                            << " (" << what << "): " << Failures(*report);
      // The waiting updates the publishes maintain were compared with raw, not skipped.
      for (const ops::CheckResult& c : report->checks) {
        if (c.name == "waiting_updates_maintained" &&
            CountOf(*lake, "SELECT count(*) FROM predlake_checkpoint") > 0) {
          EXPECT_EQ(c.status, ops::CheckStatus::kPass) << what << ": " << c.note;
        }
      }
      // Incremental mode from the previous step's mark finds nothing either.
      if (mark) {
        ops::ValidateOptions since;
        since.since = mark;
        auto incremental = ops::Validate(*lake, since);
        ASSERT_TRUE(incremental.ok()) << incremental.status().message();
        EXPECT_TRUE(incremental->Failed().empty())
            << world.name << " seed " << seed << " step " << step << " (" << what
            << ", incremental): " << Failures(*incremental);
      }
      auto now = ops::CurrentMark(*lake);
      ASSERT_TRUE(now.ok());
      mark = *now;
    }
    if (world.resubmitted) {
      // Built to the head, then rolled back to a time between two submissions the lake knows, by
      // etl drop and by raw drop (which restores the first version). A raw drop of the schedule may
      // have forgotten every earlier version: then one is stored again as at the start.
      if (CountOf(*lake, "SELECT count(*) FROM " + versions) == 0) {
        ASSERT_TRUE(RawDropFrom(*lake, found->first_ts * 1000));
        seen_head = 0;
        fetch_between_submissions();
        if (::testing::Test::HasFatalFailure()) return;
      }
      fetch(head);
      build(std::nullopt);
      if (::testing::Test::HasFatalFailure()) return;
      const int64_t n = CountOf(*lake, "SELECT count(*) FROM " + versions);
      ASSERT_GT(n, 0);
      const std::string row = " FROM " + versions + " ORDER BY ID LIMIT 1 OFFSET " +
                              std::to_string(rng.Uniform(0, n - 1));
      const int64_t t = rng.Uniform(CountOf(*lake, "SELECT timestamp" + row) + 1,
                                    CountOf(*lake, "SELECT superseded_at" + row));
      ASSERT_GT(versions_around(t), 0);
      ++between;
      ASSERT_TRUE(EtlDropFrom(*lake, t));
      expect_valid("etl drop between two submissions");
      ASSERT_TRUE(RawDropFrom(*lake, t));
      expect_valid("raw drop between two submissions");
      build(std::nullopt);
      expect_valid("etl update after the raw drop");
      EXPECT_GT(between, 0);
    }
    // Complete to the head: still no failure, and the sparse world shows why the calendar is no
    // measure of completeness.
    fetch(head);
    build(std::nullopt);
    if (::testing::Test::HasFatalFailure()) return;
    auto report = ops::Validate(*lake);
    ASSERT_TRUE(report.ok()) << report.status().message();
    EXPECT_TRUE(report->Failed().empty()) << world.name << ": " << Failures(*report);
    for (const ops::CheckResult& c : report->checks) {
      if (c.name == "epochs_without_slot") {
        EXPECT_EQ(c.count > 0, world.has_empty_epochs);
      }
    }
    if (world.resubmitted) {
      EXPECT_GT(CountOf(*lake, "SELECT count(*) FROM " + versions), 0)
          << "no fetch fell between two submissions";
    }
  }
  RecordProperty("rollbacks_between_submissions", between);
}

INSTANTIATE_TEST_SUITE_P(Seeds, ValidateProperty, ::testing::Range(0, SeedCount()));

}  // namespace
}  // namespace predlake::jobs
