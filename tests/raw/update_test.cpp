#include "raw/update.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <map>
#include <ostream>
#include <random>
#include <set>
#include <streambuf>
#include <thread>

#include "raw_test_util.hpp"
#include "support/seeds.hpp"

namespace predlake::raw {
namespace {

using rawtest::ExpectEqualsDump;
using rawtest::Ms;
using rawtest::Table;
using rawtest::TempDir;
using rawtest::WatermarkOf;

UpdateOptions Options(const config::SimConfig& world, int64_t end_ms, Sleeper* sleeper) {
  UpdateOptions o;
  o.start_ms = Ms(world.start);
  o.end_ms = end_ms;
  o.sleeper = sleeper;
  o.retry.jitter_seed = 1;
  return o;
}

struct RunRow {
  std::string status;
  std::string error;
};

RunRow LastRun(lake::Lake& lake) {
  auto r = lake.conn().Query(
      "SELECT status, coalesce(error, '') FROM predlake_runs ORDER BY run_id DESC LIMIT 1", "t");
  EXPECT_TRUE(r.ok());
  auto rows = r->ToText();
  if (rows.empty()) return {};
  return {*rows[0][0], *rows[0][1]};
}

TEST(RawUpdateTest, OneUpdateEqualsDumpAndRecordsTheRun) {
  TempDir dir;
  auto world = rawtest::SmallWorld();
  auto engine = rawtest::MakeEngine(world);
  auto lake = rawtest::OpenTestLake(dir.path());
  rawtest::NoSleep sleep;
  auto report = rawtest::RunUpdate(*lake, Options(world, Ms(world.now), &sleep),
                                   rawtest::SimFactory(engine), nullptr);
  ASSERT_TRUE(report.ok()) << report.status().message();
  const int64_t head = engine->HeadMs() / 1000 * 1000;
  EXPECT_EQ(report->head_ms, head);
  EXPECT_EQ(report->end_ms, head);
  EXPECT_EQ(report->contracts, 6);
  ASSERT_EQ(report->tables.size(), 5u);
  for (const TableReport& t : report->tables) {
    EXPECT_EQ(WatermarkOf(*lake, t.table), head) << t.table;
    EXPECT_EQ(t.after.watermark_ms, head);
    EXPECT_EQ(t.after.start_ms, Ms(world.start));
    EXPECT_GT(t.counts.rows_in, 0) << t.table;
    EXPECT_EQ(t.counts.rows_out, t.counts.rows_in) << t.table;
  }
  int64_t rows = ExpectEqualsDump(*lake, *engine);
  EXPECT_GT(rows, 1000);

  RunRow run = LastRun(*lake);
  EXPECT_EQ(run.status, "succeeded");
  auto counts = lake->conn().Query(
      "SELECT sum(rows_in), sum(rows_out) FROM predlake_run_tables WHERE run_id = " +
          std::to_string(report->run_id),
      "t");
  ASSERT_TRUE(counts.ok());
  auto c = counts->ToText();
  EXPECT_EQ(std::stoll(*c[0][0]), rows);
  EXPECT_EQ(std::stoll(*c[0][1]), rows);
  auto contracts = lake->conn().QueryInt(
      "SELECT count(*) FROM pdr_contracts WHERE pair = 'BTC/USDT' AND timeframe IN ('5m', '1h') "
      "AND source = 'binance' AND seconds_per_epoch IN (300, 3600)",
      "t");
  ASSERT_TRUE(contracts.ok());
  EXPECT_EQ(**contracts, 2);

  // A second run finds nothing new and changes nothing.
  auto again = rawtest::RunUpdate(*lake, Options(world, Ms(world.now), &sleep),
                                  rawtest::SimFactory(engine), nullptr);
  ASSERT_TRUE(again.ok()) << again.status().message();
  for (const TableReport& t : again->tables) {
    EXPECT_EQ(t.counts.rows_out, 0) << t.table;
    EXPECT_EQ(t.counts.rows_updated, 0) << t.table;
  }
  EXPECT_EQ(ExpectEqualsDump(*lake, *engine), rows);
}

TEST(RawUpdateTest, FeedsWithoutNftDataGetTheirMetadataFromTheFallback) {
  // Mainnet's tokens have `nft: null`: pair from token.name, timeframe from secondsPerEpoch,
  // source from the configured fallback. The raw tables still equal the simulator's truth, whose
  // feeds have those values, and pdr_contracts says where each field came from.
  TempDir dir;
  auto world = rawtest::SmallWorld();
  world.nftless_feeds = 0.5;
  auto engine = rawtest::MakeEngine(world);
  int nftless = 0;
  for (const sim::Feed& f : engine->world().feeds()) nftless += f.nft_null ? 1 : 0;
  ASSERT_GT(nftless, 0);
  ASSERT_LT(nftless, static_cast<int>(engine->world().feeds().size()));
  auto lake = rawtest::OpenTestLake(dir.path());
  rawtest::NoSleep sleep;
  auto report = rawtest::RunUpdate(*lake, Options(world, Ms(world.now), &sleep),
                                   rawtest::SimFactory(engine), nullptr);
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_TRUE(report->skipped_contracts.empty());
  ExpectEqualsDump(*lake, *engine);
  auto from = lake->conn().Query(
      "SELECT metadata_from, count(*) FROM pdr_contracts GROUP BY ALL ORDER BY ALL", "t");
  ASSERT_TRUE(from.ok());
  auto rows = from->ToText();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(*rows[0][0], "nft");
  EXPECT_EQ(std::stoll(*rows[0][1]), 6 - nftless);
  EXPECT_EQ(*rows[1][0], "pair=token.name timeframe=secondsPerEpoch source=config");
  EXPECT_EQ(std::stoll(*rows[1][1]), nftless);
  for (const char* sql :
       {"SELECT count(*) FROM pdr_predictions WHERE pair IS NULL OR timeframe IS NULL OR "
        "source IS NULL",
        "SELECT count(*) FROM pdr_truevals WHERE token IS NULL",
        "SELECT count(*) FROM pdr_payouts WHERE token IS NULL",
        "SELECT count(*) FROM pdr_subscriptions WHERE pair IS NULL OR timeframe IS NULL"}) {
    auto n = lake->conn().QueryInt(sql, "t");
    ASSERT_TRUE(n.ok());
    EXPECT_EQ(**n, 0) << sql;
  }
}

TEST(RawUpdateTest, TheFallbackSourceIsConfigurable) {
  TempDir dir;
  auto world = rawtest::SmallWorld();
  world.nftless_feeds = 1;
  auto engine = rawtest::MakeEngine(world);
  auto lake = rawtest::OpenTestLake(dir.path());
  rawtest::NoSleep sleep;
  UpdateOptions o = Options(world, Ms(world.start) + 3600 * 1000, &sleep);
  o.fallback_source = "kraken";
  auto report = rawtest::RunUpdate(*lake, o, rawtest::SimFactory(engine), nullptr);
  ASSERT_TRUE(report.ok()) << report.status().message();
  auto n = lake->conn().QueryInt(
      "SELECT count(*) FROM pdr_predictions WHERE source = 'kraken' AND pair IS NOT NULL", "t");
  ASSERT_TRUE(n.ok());
  EXPECT_GT(**n, 0);
  auto other = lake->conn().QueryInt(
      "SELECT count(*) FROM pdr_predictions WHERE source IS DISTINCT FROM 'kraken'", "t");
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(**other, 0);
}

// Every fetch offers every contract again: a changed one is rewritten, the others stay as they are
// (here the contracts of the NFT-less feed take another fallback source).
TEST(RawUpdateTest, AContractThatChangesIsStoredAgain) {
  TempDir dir;
  auto world = rawtest::SmallWorld();
  world.nftless_feeds = 0.5;
  auto engine = rawtest::MakeEngine(world);
  auto lake = rawtest::OpenTestLake(dir.path());
  rawtest::NoSleep sleep;
  auto contracts = [&] {
    auto r = lake->conn().Query(
        "SELECT ID, pair, timeframe, source, seconds_per_epoch, trueval_submit_timeout, "
        "metadata_from FROM pdr_contracts ORDER BY ID",
        "t");
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? r->ToText() : decltype(r->ToText()){};
  };
  UpdateOptions o = Options(world, Ms(world.start) + 3600 * 1000, &sleep);
  ASSERT_TRUE(rawtest::RunUpdate(*lake, o, rawtest::SimFactory(engine), nullptr).ok());
  const auto before = contracts();
  ASSERT_FALSE(before.empty());
  o.now_ms += 3600 * 1000;
  o.fallback_source = "kraken";
  ASSERT_TRUE(rawtest::RunUpdate(*lake, o, rawtest::SimFactory(engine), nullptr).ok());
  const auto after = contracts();
  ASSERT_EQ(after.size(), before.size());
  int changed = 0;
  for (size_t i = 0; i < after.size(); ++i) {
    if (after[i] == before[i]) continue;
    ++changed;
    EXPECT_EQ(after[i][3], "kraken");
    auto expected = before[i];
    expected[3] = "kraken";
    expected[6] = after[i][6];
    EXPECT_EQ(after[i], expected);
  }
  // The NFT-less feeds' contracts take the new fallback source; the others keep theirs.
  EXPECT_GT(changed, 0);
  EXPECT_LT(changed, static_cast<int>(after.size()));
}

TEST(RawUpdateTest, ContractsThatAreNotUsableFeedsAreSkippedAndPickedUpLater) {
  // Some contracts read secondsPerEpoch 0 until their settings event is indexed: the run stays
  // green, skips them with a reason in the report and the run's detail, and does not store them;
  // a later run, once they are complete, stores them and fetches their events.
  TempDir dir;
  auto world = rawtest::SmallWorld();
  world.unsettled_feeds = 0.5;
  auto late = rawtest::MakeEngine(world);
  int unsettled = 0;
  for (const sim::Feed& f : late->world().feeds()) {
    unsettled += f.settle_s > late->world().start_s() ? 1 : 0;
  }
  ASSERT_GT(unsettled, 0);
  config::SimConfig early_world = world;
  early_world.now = "2024-07-25_00:50";
  auto early = rawtest::MakeEngine(early_world);
  auto lake = rawtest::OpenTestLake(dir.path());
  rawtest::NoSleep sleep;
  auto first = rawtest::RunUpdate(*lake, Options(world, Ms(early_world.now), &sleep),
                                  rawtest::SimFactory(early), nullptr);
  ASSERT_TRUE(first.ok()) << first.status().message();
  ASSERT_EQ(static_cast<int>(first->skipped_contracts.size()), unsettled);
  EXPECT_EQ(first->contracts, 6 - unsettled);
  EXPECT_NE(first->skipped_contracts[0].reason.find("secondsPerEpoch is 0"), std::string::npos);
  ASSERT_EQ(SkippedContractWarnings(*first).size(), first->skipped_contracts.size());
  EXPECT_NE(SkippedContractWarnings(*first)[0].find("skipped"), std::string::npos);
  EXPECT_EQ(LastRun(*lake).status, "succeeded");
  auto detail = lake->conn().Query(
      "SELECT detail->>'$.skipped_contracts[0].id' FROM predlake_runs ORDER BY run_id DESC "
      "LIMIT 1",
      "t");
  ASSERT_TRUE(detail.ok());
  EXPECT_EQ(*detail->ToText()[0][0], first->skipped_contracts[0].id);
  auto stored = lake->conn().QueryInt("SELECT count(*) FROM pdr_contracts", "t");
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(**stored, 6 - unsettled);
  ExpectEqualsDump(*lake, *early);

  auto second = rawtest::RunUpdate(*lake, Options(world, Ms(world.now), &sleep),
                                   rawtest::SimFactory(late), nullptr);
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_TRUE(second->skipped_contracts.empty());
  EXPECT_EQ(second->contracts, 6);
  stored =
      lake->conn().QueryInt("SELECT count(*) FROM pdr_contracts WHERE seconds_per_epoch > 0", "t");
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(**stored, 6);
  ExpectEqualsDump(*lake, *late);
  auto events = lake->conn().QueryInt("SELECT count(DISTINCT contract) FROM pdr_predictions", "t");
  ASSERT_TRUE(events.ok());
  EXPECT_EQ(**events, 6);
}

TEST(RawUpdateTest, ManySmallUpdatesWithSmallPagesEqualOneBigOne) {
  TempDir dir;
  auto world = rawtest::SmallWorld();
  auto engine = rawtest::MakeEngine(world);
  auto lake = rawtest::OpenTestLake(dir.path());
  rawtest::NoSleep sleep;
  SCOPED_TRACE(test_support::SeedNote(4));
  std::mt19937_64 rng(test_support::PropertySeed(4));
  const int64_t start = Ms(world.start), now = Ms(world.now);
  int64_t to = start;
  int runs = 0;
  while (to < now) {
    to = std::min(now, to + static_cast<int64_t>(rng() % (90 * 60 * 1000)) + 1);
    UpdateOptions o = Options(world, to, &sleep);
    o.page_size = 5 + static_cast<int>(rng() % 40);  // tie groups longer than a page happen
    o.max_pages_per_commit = 1 + static_cast<int>(rng() % 3);
    auto r = rawtest::RunUpdate(*lake, o, rawtest::SimFactory(engine), nullptr);
    ASSERT_TRUE(r.ok()) << r.status().message();
    for (const TableReport& t : r->tables) {
      EXPECT_EQ(t.after.watermark_ms, std::min(to, r->head_ms)) << t.table;
    }
    ++runs;
    ExpectEqualsDump(*lake, *engine);
    if (HasFailure()) return;
  }
  EXPECT_GT(runs, 3);
  // Ties longer than the smallest pages were crossed (payout batches share a timestamp).
  auto ties = lake->conn().QueryInt(
      "SELECT max(n) FROM (SELECT count(*) AS n FROM pdr_payouts GROUP BY timestamp)", "t");
  ASSERT_TRUE(ties.ok());
  EXPECT_GT(**ties, 40);
}

TEST(RawUpdateTest, FaultsAndRerunsEndWithEverything) {
  TempDir dir;
  auto world = rawtest::SmallWorld();
  world.faults.http_5xx = 0.08;
  world.faults.timeout = 0.04;
  world.faults.http_429 = 0.04;
  world.faults.graphql_error = 0.08;
  world.faults.malformed = 0.04;
  auto lake = rawtest::OpenTestLake(dir.path());
  rawtest::NoSleep sleep;
  int failures = 0;
  uint64_t seed = 0;
  std::shared_ptr<const sim::Engine> engine;
  // Walk the window in steps; every step is rerun (with a new fault sequence) until it succeeds.
  for (int64_t to = Ms(world.start) + 30 * 60 * 1000; to <= Ms(world.now); to += 30 * 60 * 1000) {
    bool ok = false;
    for (int attempt = 0; attempt < 30 && !ok; ++attempt) {
      world.faults.seed = ++seed;
      engine = rawtest::MakeEngine(world);
      UpdateOptions o = Options(world, to, &sleep);
      o.page_size = 40;
      o.retry.max_attempts = 2;  // so that some runs fail
      o.retry.graphql_error_attempts = 1;
      auto r = rawtest::RunUpdate(*lake, o, rawtest::SimFactory(engine), nullptr);
      ok = r.ok();
      if (!ok) {
        ++failures;
        EXPECT_EQ(r.status().code(), StatusCode::kSource) << r.status().message();
        EXPECT_EQ(LastRun(*lake).status, "failed");
        EXPECT_EQ(LastRun(*lake).error, r.status().message());
      }
      ExpectEqualsDump(*lake, *engine);  // whatever was stored is right
      if (HasFailure()) return;
    }
    ASSERT_TRUE(ok) << "no success in 30 attempts up to " << FormatTime(to);
  }
  EXPECT_GT(failures, 2);
  EXPECT_GT(sleep.total.load(), 0);
  for (const TableDef& t : RawTables()) {
    EXPECT_EQ(WatermarkOf(*lake, std::string(t.name)), Ms(world.now) - world.indexing_lag_ms);
  }
}

TEST(RawUpdateTest, PinnedFaultsAreGotPastByReruns) {
  // One faults seed for every rerun, as a user's config pins it. Pick one whose first three
  // requests of a fresh transport all answer GraphQL errors: a transport that starts its count at
  // 0 in every process would fail the head read of every run, forever. Runs mix their id and
  // stream into the count, so each rerun meets other faults and the window is fetched in the end.
  auto world = rawtest::SmallWorld("2024-07-25", "2024-07-25_03:00");
  world.faults.graphql_error = 0.5;
  auto first_three_fail = [&](uint64_t salt) {
    for (uint64_t n = 0; n < 3; ++n) {
      if (sim::DecideFault(world.faults, sim::FaultIndex(salt, n)) == sim::FaultKind::kNone) {
        return false;
      }
    }
    return true;
  };
  while (!first_three_fail(0)) ++world.faults.seed;
  auto engine = rawtest::MakeEngine(world);
  rawtest::NoSleep sleep;
  UpdateOptions o = Options(world, Ms(world.now), &sleep);
  o.page_size = 200;
  o.retry.max_attempts = 3;  // the "store error" is retried within the budget otherwise

  {
    TempDir dir;
    auto lake = rawtest::OpenTestLake(dir.path());
    TransportFactory unsalted = [engine](const TransportUse&) -> std::unique_ptr<gql::Transport> {
      return std::make_unique<sim::InProcessTransport>(engine);
    };
    for (int rerun = 0; rerun < 3; ++rerun) {
      auto r = rawtest::RunUpdate(*lake, o, unsalted, nullptr);
      ASSERT_FALSE(r.ok());
      EXPECT_NE(r.status().message().find("reading the indexed head"), std::string::npos)
          << r.status().message();
    }
  }

  TempDir dir;
  auto lake = rawtest::OpenTestLake(dir.path());
  int runs = 0;
  bool ok = false;
  while (!ok && runs < 60) {
    ++runs;
    auto r = rawtest::RunUpdate(*lake, o, rawtest::SimFactory(engine), nullptr);
    ok = r.ok();
    ExpectEqualsDump(*lake, *engine);
    if (HasFailure()) return;
  }
  ASSERT_TRUE(ok) << "not fetched in " << runs << " runs";
  EXPECT_GT(runs, 1);
  for (const TableDef& t : RawTables()) {
    EXPECT_EQ(WatermarkOf(*lake, std::string(t.name)), Ms(world.now) - world.indexing_lag_ms);
  }
}

// sim dump is the truth of what the lake holds: every raw table of a complete fetch up to T equals
// `sim dump --to T`, row for row, without filtering — slot states included (as of the head, which
// is when they were fetched), and the head's own second excluded even when the head is not a whole
// second.
TEST(RawUpdateTest, SimDumpIsExactlyWhatACompleteFetchLeaves) {
  auto world = rawtest::SmallWorld("2024-07-25", "2024-07-25_06:00");
  world.indexing_lag_ms = 30'700;  // the head falls inside a second
  auto engine = rawtest::MakeEngine(world);
  ASSERT_NE(engine->HeadMs() % 1000, 0);
  rawtest::NoSleep sleep;
  const int64_t head_s_ms = engine->HeadMs() / 1000 * 1000;
  for (int64_t to : {Ms("2024-07-25_02:00"), Ms("2024-07-25_05:59:29.500"), engine->HeadMs(),
                     Ms("2024-07-26")}) {
    SCOPED_TRACE(FormatTime(to));
    TempDir dir;
    auto lake = rawtest::OpenTestLake(dir.path());
    // In two steps, to show that a stepwise fetch against one head ends the same.
    auto first = rawtest::RunUpdate(*lake, Options(world, Ms("2024-07-25_01:00"), &sleep),
                                    rawtest::SimFactory(engine), nullptr);
    ASSERT_TRUE(first.ok()) << first.status().message();
    auto r =
        rawtest::RunUpdate(*lake, Options(world, to, &sleep), rawtest::SimFactory(engine), nullptr);
    ASSERT_TRUE(r.ok()) << r.status().message();
    for (const TableDef& t : RawTables()) {
      const std::string name(t.name);
      EXPECT_EQ(WatermarkOf(*lake, name), std::min(to, head_s_ms)) << name;
      Table got = rawtest::LakeRows(*lake, name);
      Table want = rawtest::SimRows(*engine, name, to);
      EXPECT_FALSE(want.empty()) << name;
      EXPECT_EQ(got.size(), want.size()) << name;
      for (size_t i = 0; i < std::min(got.size(), want.size()); ++i) {
        if (got[i] != want[i]) {
          ADD_FAILURE() << name << " row " << i << ": lake " << ::testing::PrintToString(got[i])
                        << ", dump " << ::testing::PrintToString(want[i]);
          break;
        }
      }
    }
  }
}

TEST(RawUpdateTest, LaggingIndexerThenCatchUp) {
  TempDir dir;
  auto world = rawtest::SmallWorld();
  auto lake = rawtest::OpenTestLake(dir.path());
  rawtest::NoSleep sleep;
  world.indexing_lag_ms = 2 * 3600 * 1000;
  auto lagging = rawtest::MakeEngine(world);
  auto r1 = rawtest::RunUpdate(*lake, Options(world, Ms(world.now), &sleep),
                               rawtest::SimFactory(lagging), nullptr);
  ASSERT_TRUE(r1.ok()) << r1.status().message();
  EXPECT_EQ(r1->end_ms, Ms(world.now) - 2 * 3600 * 1000);
  for (const TableReport& t : r1->tables) EXPECT_EQ(t.after.watermark_ms, r1->end_ms);
  ExpectEqualsDump(*lake, *lagging);

  world.indexing_lag_ms = 20 * 60 * 1000;
  auto r2 = rawtest::RunUpdate(*lake, Options(world, Ms(world.now), &sleep),
                               rawtest::SimFactory(rawtest::MakeEngine(world)), nullptr);
  ASSERT_TRUE(r2.ok()) << r2.status().message();
  world.indexing_lag_ms = 0;
  auto caught_up = rawtest::MakeEngine(world);
  auto r3 = rawtest::RunUpdate(*lake, Options(world, Ms(world.now), &sleep),
                               rawtest::SimFactory(caught_up), nullptr);
  ASSERT_TRUE(r3.ok()) << r3.status().message();
  for (const TableReport& t : r3->tables) EXPECT_EQ(t.after.watermark_ms, Ms(world.now));
  // Slots fetched while pending are refreshed to their final state by the later runs.
  ExpectEqualsDump(*lake, *caught_up);
  const TableReport& slots = r2->tables.back();
  EXPECT_EQ(slots.table, "pdr_slots");
  EXPECT_GT(slots.counts.rows_updated, 0);
}

// The re-submitted predictions the world makes in [from_s, to_s), by ID.
std::map<std::string, sim::Prediction> ReSubmitted(const sim::World& w, int64_t from_s,
                                                   int64_t to_s) {
  std::map<std::string, sim::Prediction> out;
  for (const sim::Feed& f : w.feeds()) {
    for (int64_t slot = f.first_slot; slot < to_s + f.epoch; slot += f.epoch) {
      if (slot < from_s) continue;
      for (int p : f.predictoors) {
        std::optional<sim::Prediction> made = w.MakePrediction(f.index, slot, p);
        if (!made || !made->resubmitted) continue;
        out[f.contract + "-" + std::to_string(slot) + "-" +
            w.predictoors()[static_cast<size_t>(p)].address] = *made;
      }
    }
  }
  return out;
}

// (ID, timestamp, stake, superseded_at) of every recorded version, by ID then timestamp.
Table Versions(lake::Lake& lake) {
  auto r = lake.conn().Query(
      "SELECT ID, timestamp, stake, superseded_at FROM predlake_prediction_versions "
      "ORDER BY ID, timestamp",
      "read versions");
  EXPECT_TRUE(r.ok()) << r.status().message();
  Table out;
  if (!r.ok()) return out;
  for (auto& row : r->ToText()) {
    out.push_back({row[0].value_or(""), row[1].value_or(""),
                   rawtest::NormalizeDecimal(row[2].value_or("")), row[3].value_or("")});
  }
  return out;
}

TEST(RawUpdateTest, ReSubmittedPredictionsEndWithTheLatestVersionAndKeepTheFirst) {
  // Fetches at heads before, between and after the two submissions: pdr_predictions equals the
  // dump at every head (the version held there), and each first version a fetch saw before it
  // was overwritten is recorded once, also when windows are fetched again.
  TempDir dir;
  auto world = rawtest::SmallWorld("2024-07-25", "2024-07-25_03:00");
  world.resubmitted_predictions = 0.3;
  world.indexing_lag_ms = 0;
  auto lake = rawtest::OpenTestLake(dir.path());
  rawtest::NoSleep sleep;
  const int64_t t0 = Ms("2024-07-25_01:00");
  std::vector<int64_t> heads;
  for (int64_t h = t0; h < t0 + 1800 * 1000; h += 97 * 1000) heads.push_back(h);
  for (int64_t head : heads) {
    auto c = world;
    c.now = std::to_string(head);
    auto engine = rawtest::MakeEngine(c);
    auto r =
        rawtest::RunUpdate(*lake, Options(c, head, &sleep), rawtest::SimFactory(engine), nullptr);
    ASSERT_TRUE(r.ok()) << r.status().message();
    ExpectEqualsDump(*lake, *engine);
  }
  const Table before_rerun = Versions(*lake);
  // A rerun of a window already fetched (its watermark moved back by hand, as an overlap would)
  // records nothing twice.
  ASSERT_TRUE(lake->conn()
                  .Execute("UPDATE predlake_watermarks SET watermark_ms = " +
                               std::to_string(t0 + 600 * 1000),
                           "move back")
                  .ok());
  auto c_last = world;
  c_last.now = std::to_string(heads.back());
  auto last = rawtest::MakeEngine(c_last);
  ASSERT_TRUE(rawtest::RunUpdate(*lake, Options(c_last, heads.back(), &sleep),
                                 rawtest::SimFactory(last), nullptr)
                  .ok());
  ExpectEqualsDump(*lake, *last);
  const Table versions = Versions(*lake);
  EXPECT_EQ(versions, before_rerun);

  // Every version is a first submission of a re-submitted prediction, superseded by the latest;
  // every one a head fell between (a second clear of both) is there.
  const auto resubmitted = ReSubmitted(last->world(), Ms(world.start) / 1000, heads.back() / 1000);
  std::set<std::string> recorded;
  for (const auto& v : versions) {
    SCOPED_TRACE(v[0]);
    auto it = resubmitted.find(v[0]);
    ASSERT_NE(it, resubmitted.end());
    EXPECT_EQ(v[1], std::to_string(it->second.first_ts * 1000));
    EXPECT_EQ(v[2], rawtest::NormalizeDecimal(sim::FormatWei(it->second.first_stake)));
    EXPECT_EQ(v[3], std::to_string(it->second.ts * 1000));
    recorded.insert(v[0]);
  }
  int between = 0;
  for (const auto& [id, p] : resubmitted) {
    bool seen = false;
    for (int64_t head : heads) {
      seen = seen || (p.first_ts * 1000 + 1000 < head && head + 1000 < p.ts * 1000 &&
                      p.ts * 1000 + 1000 < heads.back());
    }
    if (!seen) continue;
    ++between;
    EXPECT_TRUE(recorded.count(id)) << id << " was fetched between its submissions";
  }
  ASSERT_GT(between, 5) << "no head fell between two submissions";

  // raw drop between the two submissions restores the first version; before the first deletes
  // the prediction and its version.
  const std::string id = versions[versions.size() / 2][0];
  const sim::Prediction& p = resubmitted.at(id);
  auto stake_of = [&](const std::string& which) {
    auto r = lake->conn().Query(
        "SELECT timestamp, stake FROM pdr_predictions WHERE ID = '" + which + "'", "read one");
    EXPECT_TRUE(r.ok());
    auto rows = r->ToText();
    return rows.empty()
               ? std::vector<std::string>{}
               : std::vector<std::string>{rows[0][0].value_or(""),
                                          rawtest::NormalizeDecimal(rows[0][1].value_or(""))};
  };
  EXPECT_EQ(stake_of(id),
            (std::vector<std::string>{std::to_string(p.ts * 1000),
                                      rawtest::NormalizeDecimal(sim::FormatWei(p.stake))}));
  const int64_t cut = p.ts * 1000;     // between: first_ts < cut <= ts
  std::set<std::string> stored_first;  // IDs whose row is still the first version
  for (const auto& row : rawtest::LakeRows(*lake, "pdr_predictions")) {
    auto it = resubmitted.find(row[0]);
    if (it != resubmitted.end() && row[7] == std::to_string(it->second.first_ts * 1000)) {
      stored_first.insert(row[0]);
    }
  }
  {
    auto dropped = lake->DeleteRawFrom(cut);
    ASSERT_TRUE(dropped.ok()) << dropped.status().message();
    EXPECT_GE(dropped->at("pdr_predictions").rows_updated, 1);
  }
  EXPECT_EQ(stake_of(id),
            (std::vector<std::string>{std::to_string(p.first_ts * 1000),
                                      rawtest::NormalizeDecimal(sim::FormatWei(p.first_stake))}));
  for (const auto& v : Versions(*lake)) EXPECT_LT(std::stoll(v[3]), cut) << v[0];
  {
    // What a fetch with every event before the cut holds, but for the first versions the lake never
    // saw (no fetch between the two submissions): those predictions are gone until fetched again.
    auto c = world;
    c.now = std::to_string(cut - 1);  // the head's own second counts as indexed
    auto at_cut = rawtest::MakeEngine(c);
    Table want;
    for (auto& row : rawtest::SimRows(*at_cut, "pdr_predictions", cut)) {
      auto it = resubmitted.find(row[0]);
      const bool first = it != resubmitted.end() && it->second.ts * 1000 >= cut;
      if (!first || recorded.count(row[0]) || stored_first.count(row[0])) {
        want.push_back(std::move(row));
      }
    }
    const Table got = rawtest::LakeRows(*lake, "pdr_predictions");
    EXPECT_EQ(got.size(), want.size());
    const std::set<std::vector<std::string>> got_set(got.begin(), got.end()),
        want_set(want.begin(), want.end());
    for (const auto& row : got_set) {
      EXPECT_TRUE(want_set.count(row)) << "not at the cut: " << ::testing::PrintToString(row);
    }
    for (const auto& row : want_set) {
      EXPECT_TRUE(got_set.count(row)) << "missing: " << ::testing::PrintToString(row);
    }
  }
  // Fetched again: the same lake as before the drop.
  ASSERT_TRUE(rawtest::RunUpdate(*lake, Options(c_last, heads.back(), &sleep),
                                 rawtest::SimFactory(last), nullptr)
                  .ok());
  ExpectEqualsDump(*lake, *last);
  EXPECT_EQ(stake_of(id)[0], std::to_string(p.ts * 1000));
  // The versions from the cut on went with the drop; those whose first version is before it come
  // back (the restored row meets its re-submission again), the others are seen only as the latest.
  size_t gone = 0;
  for (const auto& v : versions) gone += std::stoll(v[1]) >= cut ? 1 : 0;
  EXPECT_EQ(Versions(*lake).size(), versions.size() - gone);
  ASSERT_TRUE(lake->DeleteRawFrom(p.first_ts * 1000).ok());
  EXPECT_TRUE(stake_of(id).empty());
  for (const auto& v : Versions(*lake)) EXPECT_NE(v[0], id);
}

// A streambuf writing straight to a file descriptor (no buffering, no locks: fork-safe).
class FdStreamBuf final : public std::streambuf {
 public:
  explicit FdStreamBuf(int fd) : fd_(fd) {}

 protected:
  int overflow(int c) override {
    if (c == EOF) return 0;
    char ch = static_cast<char>(c);
    return ::write(fd_, &ch, 1) == 1 ? c : EOF;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    return ::write(fd_, s, static_cast<size_t>(n));
  }

 private:
  int fd_;
};

TEST(RawUpdateTest, KilledAtRandomPointsLosesAndDuplicatesNothing) {
  TempDir dir;
  auto world = rawtest::SmallWorld("2024-07-24_12:00", "2024-07-25_06:00");
  auto engine = rawtest::MakeEngine(world);
  SCOPED_TRACE(test_support::SeedNote(11));
  std::mt19937_64 rng(test_support::PropertySeed(11));
  int killed = 0;
  for (int round = 0; round < 5; ++round) {
    // The child reports through a pipe (as its progress output) once its run has begun, so that
    // the kill lands inside the run however slow the build is.
    int ready[2];
    ASSERT_EQ(pipe(ready), 0);
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      close(ready[0]);
      FdStreamBuf buf(ready[1]);
      std::ostream out(&buf);
      Progress progress(out, true);
      auto lake = rawtest::OpenTestLake(dir.path());
      if (!lake) _exit(2);
      UpdateOptions o = Options(world, Ms(world.now), nullptr);
      o.page_size = 100;
      o.max_pages_per_commit = 1;
      auto r = rawtest::RunUpdate(*lake, o, rawtest::SimFactory(engine), &progress);
      _exit(r.ok() ? 0 : 1);
    }
    close(ready[1]);
    char c;
    bool started = read(ready[0], &c, 1) == 1;
    if (started) {
      std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 300));
      if (kill(pid, SIGKILL) == 0) ++killed;
    }
    // The child's later progress output must not meet a closed pipe (SIGPIPE): drain it.
    while (read(ready[0], &c, 1) == 1) {
    }
    close(ready[0]);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    if (WIFEXITED(status)) {
      ASSERT_EQ(WEXITSTATUS(status), 0);
    }
    auto lake = rawtest::OpenTestLake(dir.path());
    ASSERT_NE(lake, nullptr);
    ExpectEqualsDump(*lake, *engine);
    if (HasFailure()) return;
  }
  EXPECT_GT(killed, 0);
  auto lake = rawtest::OpenTestLake(dir.path());
  ASSERT_NE(lake, nullptr);
  rawtest::NoSleep sleep;
  auto r = rawtest::RunUpdate(*lake, Options(world, Ms(world.now), &sleep),
                              rawtest::SimFactory(engine), nullptr);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ExpectEqualsDump(*lake, *engine);
  auto aborted =
      lake->conn().QueryInt("SELECT count(*) FROM predlake_runs WHERE status = 'aborted'", "t");
  ASSERT_TRUE(aborted.ok());
  EXPECT_GT(**aborted, 0);
}

}  // namespace
}  // namespace predlake::raw
