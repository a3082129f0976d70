// Backfill and chunked runs (issue 13): randomised schedules that move lake_ss.st_timestr earlier
// (and later) between updates, with failures injected at every chunk phase, end equal to a
// one-shot, one-window build from the earliest start (docs/design.md rule 7 extended), raw and
// built tables alike. The seeds: PREDLAKE_BACKFILL_SEEDS (default 3, 1 under sanitizers, decided by
// the compiler so that CTest lists what runs).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../raw/raw_test_util.hpp"
#include "etl/etl.hpp"
#include "etl/pipeline.hpp"
#include "jobs/update.hpp"
#include "source/sim/faults.hpp"
#include "source/sim/transport.hpp"
#include "support/fixtures.hpp"
#include "support/rng.hpp"
#include "support/seeds.hpp"

namespace predlake::jobs {
namespace {

using raw::rawtest::Ms;
using raw::rawtest::TempDir;
using test_support::Rng;

using test_support::kSanitized;

int BackfillSeedCount() { return test_support::SeedCount("PREDLAKE_BACKFILL_SEEDS", 2, 1); }

constexpr int64_t kHourMs = 3'600'000;

config::SimConfig BackfillWorld(uint64_t seed) {
  config::SimConfig c;
  c.seed = seed;
  c.start = "2024-07-25";
  c.now = "2024-07-25_14:00";
  c.num_predictoors = 6;
  c.pairs = {"BTC/USDT", "ETH/USDT"};
  return c;
}

// Every raw and built table's rows as count/hash (built tables without run_id), and the
// watermarks and checkpoint: equal strings mean equal lakes.
std::string LakeFingerprint(const std::string& dir) {
  auto lake = test_support::OpenReadTestLake(dir);
  if (!lake) return "no lake";
  std::string out;
  auto add = [&](std::string_view table, const std::string& select) {
    auto rows = lake->conn().Query(
        "SELECT count(*)::VARCHAR || '/' || "
        "coalesce(sum(hash(r)), 0)::VARCHAR FROM (" +
            select + ") AS r",
        "fingerprint");
    EXPECT_TRUE(rows.ok()) << rows.status().message();
    if (!rows.ok()) return;
    auto text = rows->ToText();
    out += std::string(table) + "=" + text[0][0].value_or("?") + "\n";
  };
  for (std::string_view t : lake::kRawTables) add(t, "SELECT * FROM " + std::string(t));
  add(lake::kOhlcvTable.name, "SELECT * FROM " + std::string(lake::kOhlcvTable.name));
  for (std::string_view t : lake::kBuiltTables) {
    add(t, "SELECT * EXCLUDE (run_id) FROM " + std::string(t));
  }
  add("watermarks",
      "SELECT table_name, start_ms, watermark_ms FROM predlake_watermarks WHERE table_name IN "
      "('pdr_predictions', 'pdr_truevals', 'pdr_payouts', 'pdr_subscriptions', 'pdr_slots') OR "
      "table_name LIKE 'pdr_ohlcv:%'");
  add("checkpoint", "SELECT start_ms, checkpoint_ms FROM predlake_checkpoint");
  return out;
}

int64_t LakeInt(const std::string& dir, const std::string& sql) {
  auto lake = test_support::OpenReadTestLake(dir);
  if (!lake) return -1;
  auto v = lake->conn().QueryInt(sql, "test");
  EXPECT_TRUE(v.ok()) << v.status().message() << "\n" << sql;
  return v.ok() ? v->value_or(-1) : -1;
}

UpdateRequest BackfillRequest(const std::string& dir, raw::TransportFactory factory,
                              Sleeper* sleeper, int64_t start_ms, int64_t end_ms, int64_t chunk_ms,
                              raw::ExchangeFactory exchange = {}) {
  UpdateRequest r;
  r.exchange = std::move(exchange);
  r.writer.lake_dir = dir;
  r.start_ms = start_ms;
  r.end_ms = [end_ms](int64_t) -> Result<int64_t> { return end_ms; };
  r.factory = std::move(factory);
  r.sleeper = sleeper;
  r.retry.jitter_seed = 1;
  r.chunk_ms = chunk_ms;
  return r;
}

// Every phase of a chunk where a failure (or a kill) can land: the raw steps and the ETL's (those
// of an incremental chunk).
std::vector<std::string> ChunkPhases() {
  std::vector<std::string> out = {"backfill_commit", "fetch_commit"};
  for (const std::string& s : etl::JobStepNames(etl::Job::kUpdate)) {
    if (s != "drop_staging") out.push_back(s);  // after the commit: its failure is ignored
  }
  return out;
}

// The one-shot build: a fresh lake, one update in one window from `start` to `end`.
std::string OneShot(const raw::TransportFactory& factory, Sleeper* sleeper, int64_t start,
                    int64_t end, const raw::ExchangeFactory& exchange = {}, int64_t now_ms = 0) {
  TempDir dir;
  auto report =
      Update(BackfillRequest(dir.path(), factory, sleeper, start, end, 0, exchange), now_ms);
  EXPECT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report.ok() ? report->chunks : 0, 1);
  return LakeFingerprint(dir.path());
}

class BackfillProperty : public ::testing::TestWithParam<int> {};

TEST_P(BackfillProperty, MovingTheStartEarlierWithFailuresEqualsAOneShotBuild) {
  SCOPED_TRACE(test_support::SeedNote(GetParam()));
  const uint64_t seed = test_support::PropertySeed(GetParam());
  const config::SimConfig world = BackfillWorld(seed);
  auto engine = raw::rawtest::MakeEngine(world);
  ASSERT_NE(engine, nullptr);
  const raw::TransportFactory factory = raw::rawtest::SimFactory(engine);
  // The exchange's candles too: their streams are backfilled with the tables.
  const raw::ExchangeFactory exchange = [engine](int64_t run_id) {
    return std::unique_ptr<exchange::Transport>(
        std::make_unique<sim::InProcessExchangeTransport>(engine, sim::FaultSalt(run_id, 99)));
  };
  raw::rawtest::NoSleep sleep;
  Rng rng(seed * 7919 + 5);
  const int64_t earliest = Ms(world.start);
  const int64_t head = engine->HeadMs();
  const int64_t world_now = Ms(world.now);  // candles closed by then are stored
  // The phases of an incremental chunk, and the rebuild's steps of a first update (or a start
  // moved earlier) in parts.
  std::vector<std::string> phases = ChunkPhases();
  for (const std::string& s : etl::JobStepNames(etl::Job::kRebuild)) {
    if (s != "drop_staging" && std::find(phases.begin(), phases.end(), s) == phases.end()) {
      phases.push_back(s);
    }
  }
  const int64_t chunk_choices[] = {45 * 60'000, 2 * kHourMs, 5 * kHourMs, 0};
  const int64_t part_choices[] = {0, 40 * 60'000, 90 * 60'000};

  TempDir dir;
  // A start some hours in, sometimes off the second (ties at the boundary are whole seconds).
  int64_t start =
      earliest + rng.Uniform(5, 9) * kHourMs + (rng.Chance(30) ? rng.Uniform(1, 999) : 0);
  int64_t end = start + rng.Uniform(1, 3) * kHourMs;
  int backfills = 0, failures = 0, later_starts = 0;
  std::string log;
  // chunk_ms < 0: one of chunk_choices.
  auto run_update = [&](bool may_fail, int64_t chunk_ms = -1) {
    if (chunk_ms < 0) chunk_ms = chunk_choices[rng.Uniform(0, 3)];
    UpdateRequest request =
        BackfillRequest(dir.path(), factory, &sleep, start, end, chunk_ms, exchange);
    request.part_ms = part_choices[rng.Uniform(0, 2)];
    if (may_fail && rng.Chance(60)) {
      request.faults.fail_at = phases[rng.Uniform(0, static_cast<int64_t>(phases.size()) - 1)];
    }
    log += "update start=" + FormatTime(start) + " end=" + FormatTime(end) +
           " chunk=" + std::to_string(chunk_ms) + " part=" + std::to_string(request.part_ms) +
           " fail_at=" + request.faults.fail_at + "\n";
    auto report = Update(request, world_now);
    if (!report.ok()) {
      EXPECT_FALSE(request.faults.fail_at.empty()) << report.status().message() << "\n" << log;
      EXPECT_EQ(report.status().code(), StatusCode::kInternal) << report.status().message();
      EXPECT_NE(report.status().message().find(request.faults.fail_at), std::string::npos)
          << report.status().message();
      ++failures;
      return;
    }
    for (const raw::TableReport& t : report->raw.tables) {
      if (t.backfill_from_ms) {
        ++backfills;
        EXPECT_EQ(t.after.start_ms, start) << t.table << "\n" << log;
      }
    }
  };

  // The first update in chunks: its window fetched chunk by chunk, then built in parts.
  run_update(false, 45 * 60'000);
  ASSERT_GT(LakeInt(dir.path(), "SELECT count(*) FROM bronze_pdr_predictions"), 0) << log;
  // Fewer under the sanitizers: each step runs the same update code, and what they can find there
  // is a memory error, not a schedule (the release tree's).
  const int steps = kSanitized ? 2 : 5;
  for (int step = 0; step < steps; ++step) {
    const int64_t action = rng.Uniform(0, 9);
    if (action < 4 && start > earliest) {
      start = earliest + rng.Uniform(0, (start - earliest) / 60'000) * 60'000;  // earlier
    } else if (action < 5) {
      // Later: nothing built changes (the lake keeps its start).
      const int64_t before = LakeInt(dir.path(), "SELECT start_ms FROM predlake_checkpoint");
      UpdateRequest request = BackfillRequest(
          dir.path(), factory, &sleep, before + rng.Uniform(1, 3) * kHourMs, end, 0, exchange);
      log += "update with a later start\n";
      auto report = Update(request, world_now);
      ASSERT_TRUE(report.ok()) << report.status().message();
      bool said = false;
      for (const std::string& w : report->raw.warnings) {
        said |= w.find("nothing changes") != std::string::npos;
      }
      EXPECT_TRUE(said) << log;
      EXPECT_EQ(LakeInt(dir.path(), "SELECT start_ms FROM predlake_checkpoint"), before);
      ++later_starts;
      continue;
    }
    end = std::min(head, end + rng.Uniform(0, 3) * kHourMs);
    run_update(true);
  }
  // The rerun after the last failure, then the earliest start to the head.
  start = earliest;
  end = head;
  run_update(false);
  run_update(false);
  // The backfill is in the first chunk's fetch (a chunked update reports its last chunk): the
  // ledger records each one.
  EXPECT_GT(LakeInt(dir.path(),
                    "SELECT count(*) FROM predlake_runs WHERE "
                    "json_extract(detail, '$.raw.backfill') IS NOT NULL"),
            0)
      << log;
  // Rows before the first start were fetched, and the built tables start at the earliest start.
  EXPECT_EQ(LakeInt(dir.path(), "SELECT start_ms FROM predlake_checkpoint"), earliest) << log;
  EXPECT_GT(LakeInt(dir.path(), "SELECT count(*) FROM bronze_pdr_predictions WHERE timestamp < " +
                                    std::to_string(earliest + 5 * kHourMs)),
            0);
  EXPECT_EQ(LakeFingerprint(dir.path()),
            OneShot(factory, &sleep, earliest, head, exchange, world_now))
      << log;
  // The candles were part of it: the streams start at the earliest start and slots carry them.
  EXPECT_EQ(LakeInt(dir.path(),
                    "SELECT count(*) FROM predlake_watermarks WHERE table_name LIKE "
                    "'pdr_ohlcv:%' AND start_ms <> " +
                        std::to_string(earliest)),
            0);
  EXPECT_GT(LakeInt(dir.path(),
                    "SELECT count(*) FROM bronze_pdr_slots WHERE trueval_agrees "
                    "IS NOT NULL AND slot * 1000 < " +
                        std::to_string(earliest + 5 * kHourMs)),
            0)
      << log;
  std::fprintf(stderr, "%s: %d backfills seen in a last chunk, %d failures, %d later starts\n",
               test_support::SeedNote(GetParam()).c_str(), backfills, failures, later_starts);
}

INSTANTIATE_TEST_SUITE_P(Seeds, BackfillProperty, ::testing::Range(0, BackfillSeedCount()));

// A chunked update failing at every phase of a chunk, each in a later chunk of one growing lake
// (and a backfill failing at its chunk's commit): each failure loses only its chunk, each rerun
// redoes it, and the lake ends equal to one window from the earliest start, one run per chunk.
// The walk over every chunk phase is serial (each failure on the lake the previous rerun left), and
// was the longest test of the suite: it runs in kChunkWalkParts parts, part p failing the phases
// whose index is p modulo the parts, each on its own lake after one chunk that succeeds, so that
// CTest runs the parts in parallel; one more part fails the backfill's commit.
constexpr int kChunkWalkParts = kSanitized ? 1 : 4;

class ChunkWalk : public ::testing::TestWithParam<int> {};

TEST_P(ChunkWalk, AFailureInEveryChunkPhaseThenARerunEqualsOneWindow) {
  const int part = GetParam();
  const config::SimConfig world = BackfillWorld(3);
  auto engine = raw::rawtest::MakeEngine(world);
  ASSERT_NE(engine, nullptr);
  const raw::TransportFactory factory = raw::rawtest::SimFactory(engine);
  raw::rawtest::NoSleep sleep;
  const int64_t earliest = Ms(world.start);
  const int64_t head = engine->HeadMs();
  const int64_t chunk_ms = 20 * 60'000;
  const int64_t first_start = earliest + kHourMs;
  TempDir dir;
  int64_t end = first_start + chunk_ms;
  {
    auto first =
        Update(BackfillRequest(dir.path(), factory, &sleep, first_start, end, chunk_ms), 0);
    ASSERT_TRUE(first.ok()) << first.status().message();
  }
  const std::vector<std::string> phases = ChunkPhases();
  int64_t failures = 0;
  for (size_t i = 0; i < phases.size(); ++i) {
    const std::string& phase = phases[i];
    // The last part walks none (i % kChunkWalkParts < kChunkWalkParts).
    if (phase == "backfill_commit" || static_cast<int>(i) % kChunkWalkParts != part) continue;
    // Under the sanitizers a sample of the ETL steps (and the fetch's commit).
    if (phase != "fetch_commit" && !test_support::Walked(i, phases.size())) continue;
    SCOPED_TRACE(phase);
    end += chunk_ms;
    ++failures;
    const std::string before = phase == "fetch_commit" ? LakeFingerprint(dir.path()) : "";
    UpdateRequest failing =
        BackfillRequest(dir.path(), factory, &sleep, first_start, end, chunk_ms);
    failing.faults.fail_at = phase;
    auto failed = Update(failing, 0);
    ASSERT_FALSE(failed.ok());
    EXPECT_NE(failed.status().message().find(phase), std::string::npos)
        << failed.status().message();
    // The failed chunk changed nothing the ETL publishes (the fetch keeps what it committed).
    if (phase != "fetch_commit") {
      EXPECT_EQ(
          LakeInt(dir.path(), "SELECT coalesce(max(checkpoint_ms), 0) FROM predlake_checkpoint"),
          end - chunk_ms);
    } else {
      EXPECT_EQ(LakeFingerprint(dir.path()), before);
    }
    auto rerun =
        Update(BackfillRequest(dir.path(), factory, &sleep, first_start, end, chunk_ms), 0);
    ASSERT_TRUE(rerun.ok()) << rerun.status().message();
    EXPECT_EQ(rerun->chunks, 1);
    EXPECT_EQ(LakeInt(dir.path(), "SELECT checkpoint_ms FROM predlake_checkpoint"), end);
  }
  if (part != kChunkWalkParts) return;
  // The backfill's chunk commit fails; the rerun backfills, rebuilds and goes on to the head in
  // chunks.
  UpdateRequest failing = BackfillRequest(dir.path(), factory, &sleep, earliest, head, chunk_ms);
  failing.faults.fail_at = "backfill_commit";
  auto failed = Update(failing, 0);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("backfill_commit"), std::string::npos);
  EXPECT_EQ(LakeInt(dir.path(), "SELECT min(start_ms) FROM predlake_watermarks"), first_start);
  const int64_t runs_before = LakeInt(dir.path(), "SELECT count(*) FROM predlake_runs");
  auto rerun = Update(BackfillRequest(dir.path(), factory, &sleep, earliest, head, 2 * kHourMs), 0);
  ASSERT_TRUE(rerun.ok()) << rerun.status().message();
  EXPECT_GT(rerun->chunks, 1);
  EXPECT_EQ(LakeInt(dir.path(), "SELECT count(*) FROM predlake_runs") - runs_before, rerun->chunks);
  EXPECT_EQ(LakeInt(dir.path(), "SELECT count(*) FROM predlake_runs WHERE status = 'failed'"),
            failures + 1);
  EXPECT_EQ(LakeFingerprint(dir.path()), OneShot(factory, &sleep, earliest, head));
}

INSTANTIATE_TEST_SUITE_P(Parts, ChunkWalk, ::testing::Range(0, kChunkWalkParts + 1));

// A first update in chunks (nothing built yet) fetches its window chunk by chunk, then builds it as
// one rebuild in parts (jobs::Update). A failure in every phase of it: the fetch's commit, and
// every step of the rebuild, each in the first part that reaches it (a later part for the steps of
// the last part only); the rerun resumes (after the last committed part, without fetching) and
// the lake ends equal to one window, every run of the ledger an `update`. Each phase on a fresh
// lake, in kFirstUpdateWalkParts parts by phase index.
constexpr int kFirstUpdateWalkParts = kSanitized ? 1 : 3;

class FirstUpdateWalk : public ::testing::TestWithParam<int> {};

TEST_P(FirstUpdateWalk, AFailureInEveryPhaseOfAChunkedFirstUpdateThenARerunEqualsOneWindow) {
  const config::SimConfig world = BackfillWorld(5);
  auto engine = raw::rawtest::MakeEngine(world);
  ASSERT_NE(engine, nullptr);
  const raw::TransportFactory factory = raw::rawtest::SimFactory(engine);
  raw::rawtest::NoSleep sleep;
  const int64_t start = Ms(world.start) + kHourMs;
  const int64_t end = start + 2 * kHourMs;
  const int64_t chunk_ms = 30 * 60'000;
  const int64_t part_ms = 40 * 60'000;  // three parts
  // The one-shot build is the same for every part: built once per executable (the parts are
  // separate processes under CTest), its fingerprint kept in a shared fixture folder.
  const std::string shared =
      test_support::SharedFixtureDir("first_update_walk_one_shot", [&](const std::string& dir) {
        std::ofstream(dir + "/fingerprint") << OneShot(factory, &sleep, start, end);
      });
  ASSERT_FALSE(shared.empty());
  std::stringstream one_text;
  one_text << std::ifstream(shared + "/fingerprint").rdbuf();
  const std::string one = one_text.str();
  ASSERT_FALSE(one.empty());
  std::vector<std::string> phases = {"fetch_commit"};
  for (const std::string& s : etl::JobStepNames(etl::Job::kRebuild)) {
    if (s != "drop_staging") phases.push_back(s);  // after the commit: its failure is ignored
  }
  int walked = 0;
  for (size_t i = 0; i < phases.size(); ++i) {
    if (static_cast<int>(i) % kFirstUpdateWalkParts != GetParam()) continue;
    // Under the sanitizers a sample of the steps, the fetch's commit (the first) among them.
    if (!test_support::Walked(i, phases.size())) continue;
    const std::string& phase = phases[i];
    SCOPED_TRACE(phase);
    TempDir dir;
    UpdateRequest failing = BackfillRequest(dir.path(), factory, &sleep, start, end, chunk_ms);
    failing.part_ms = part_ms;
    failing.faults.fail_at = phase;
    auto failed = Update(failing, 0);
    ASSERT_FALSE(failed.ok()) << "the walk did not reach " << phase;
    EXPECT_NE(failed.status().message().find(phase), std::string::npos)
        << failed.status().message();
    EXPECT_EQ(LakeInt(dir.path(), "SELECT count(*) FROM predlake_checkpoint"), 0);
    const int64_t parts_committed =
        LakeInt(dir.path(),
                "SELECT count(*) FROM predlake_runs WHERE status = 'succeeded' AND "
                "json_extract(detail, '$.raw') IS NULL");
    UpdateRequest clean = BackfillRequest(dir.path(), factory, &sleep, start, end, chunk_ms);
    clean.part_ms = part_ms;
    const int64_t runs_before = LakeInt(dir.path(), "SELECT count(*) FROM predlake_runs");
    auto rerun = Update(clean, 0);
    ASSERT_TRUE(rerun.ok()) << rerun.status().message();
    EXPECT_EQ(LakeInt(dir.path(), "SELECT count(*) FROM predlake_runs") - runs_before,
              rerun->chunks);
    if (parts_committed > 0) {
      // Resumed after the committed parts, nothing fetched again: the rest of the three parts.
      EXPECT_EQ(rerun->chunks, 3 - parts_committed);
    }
    EXPECT_EQ(LakeFingerprint(dir.path()), one);
    EXPECT_EQ(LakeInt(dir.path(),
                      "SELECT count(*) FROM predlake_runs WHERE command <> 'update' OR status NOT "
                      "IN ('succeeded', 'failed')"),
              0);
    ++walked;
  }
  EXPECT_GT(walked, 0);
}

INSTANTIATE_TEST_SUITE_P(Parts, FirstUpdateWalk, ::testing::Range(0, kFirstUpdateWalkParts));

TEST(ChunkedUpdate, ChunksFollowTheCheckpointPeriodAndReportProgress) {
  const config::SimConfig world = BackfillWorld(4);
  auto engine = raw::rawtest::MakeEngine(world);
  ASSERT_NE(engine, nullptr);
  raw::rawtest::NoSleep sleep;
  TempDir dir;
  const int64_t earliest = Ms(world.start);
  std::vector<ChunkProgress> seen;
  auto report = Update(BackfillRequest(dir.path(), raw::rawtest::SimFactory(engine), &sleep,
                                       earliest, earliest + 10 * kHourMs, 3 * kHourMs),
                       0, [&](const ChunkProgress& p) { seen.push_back(p); });
  ASSERT_TRUE(report.ok()) << report.status().message();
  // Nothing built yet: the fetch in [0h, 3h), [3h, 6h), [6h, 9h), [9h, 10h), then the ETL as one
  // rebuild in parts (one 7-day pass here): five runs, progress after each fetch.
  EXPECT_EQ(report->chunks, 5);
  ASSERT_EQ(seen.size(), 4u);
  for (size_t i = 0; i < seen.size(); ++i) {
    EXPECT_EQ(seen[i].done, static_cast<int64_t>(i) + 1);
    EXPECT_EQ(seen[i].left, 4 - static_cast<int64_t>(i));
    EXPECT_EQ(seen[i].window_end_ms, std::min(earliest + static_cast<int64_t>(i + 1) * 3 * kHourMs,
                                              earliest + 10 * kHourMs));
    EXPECT_GT(seen[i].rows, 0);
  }
  EXPECT_NE(DescribeChunk(seen[0]).find("chunk 1/5 [2024-07-25T00:00:00Z, 2024-07-25T03:00:00Z)"),
            std::string::npos)
      << DescribeChunk(seen[0]);
  EXPECT_EQ(LakeInt(dir.path(),
                    "SELECT count(*) FROM predlake_runs WHERE command = 'update' AND status = "
                    "'succeeded' AND json_extract(detail, '$.chunk.of')::INT = 5 AND NOT "
                    "json_extract(detail, '$.changed')::BOOLEAN AND "
                    "json_extract(detail, '$.raw') IS NOT NULL"),
            4);
  // The last run publishes the whole window.
  EXPECT_EQ(LakeInt(dir.path(),
                    "SELECT count(*) FROM predlake_runs WHERE command = 'update' AND "
                    "json_extract(detail, '$.changed')::BOOLEAN AND window_start_ms = " +
                        std::to_string(earliest)),
            1);
  EXPECT_EQ(LakeInt(dir.path(), "SELECT checkpoint_ms FROM predlake_checkpoint"),
            earliest + 10 * kHourMs);
}

}  // namespace
}  // namespace predlake::jobs
