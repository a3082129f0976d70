// A check must never fire on a correct lake: for random schedules of raw updates and ETL updates
// with arbitrary ends, ETL rollbacks and raw drops (each followed by refills), over sparse worlds
// (a few predictoors, so that many epochs have no prediction and no slot) and dense ones,
// `validate` finds no failure after every step.
//
// PREDLAKE_VALIDATE_SEEDS (schedules per world, default 3) scales it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "../raw/raw_test_util.hpp"
#include "etl/etl.hpp"
#include "ops/validate.hpp"
#include "raw/update.hpp"
#include "schedule_steps.hpp"
#include "support/rng.hpp"

namespace predlake::jobs {
namespace {

using raw::rawtest::Ms;
using raw::rawtest::TempDir;

int SeedCount() {
  const char* v = std::getenv("PREDLAKE_VALIDATE_SEEDS");
  return v && *v ? std::atoi(v) : 3;
}

using test_support::Rng;

struct World {
  const char* name;
  config::SimConfig config;
  bool has_empty_epochs = false;  // the complete lake has epochs without a slot
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
  for (const World& world : {Sparse(), Dense()}) {
    SCOPED_TRACE(world.name);
    const int seed = GetParam();
    Rng rng(static_cast<uint64_t>(seed) * 7919 + (world.name[0] == 's' ? 1 : 2));
    auto engine = raw::rawtest::MakeEngine(world.config);
    ASSERT_NE(engine, nullptr);
    const int64_t start = Ms(world.config.start);
    const int64_t head = engine->HeadMs();
    raw::rawtest::NoSleep sleep;
    TempDir dir;
    auto lake = raw::rawtest::OpenLake(dir.path());
    ASSERT_NE(lake, nullptr);

    auto random_time = [&]() { return start + rng.Uniform(0, (head - start) / 60'000) * 60'000; };
    auto fetch = [&](int64_t end_ms) {
      raw::UpdateOptions o;
      o.start_ms = start;
      o.end_ms = end_ms;
      o.sleeper = &sleep;
      auto r = raw::rawtest::RunUpdate(*lake, o, raw::rawtest::SimFactory(engine), nullptr);
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

    const int steps = 8;
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
          ASSERT_TRUE(EtlDropFrom(*lake, t));
          break;
        }
        case 4: {
          what = "raw drop --from " + FormatTime(t) + ", then raw update";
          ASSERT_TRUE(RawDropFrom(*lake, t));
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
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, ValidateProperty, ::testing::Range(1, SeedCount() + 1));

}  // namespace
}  // namespace predlake::jobs
