// The candle source (pdr_ohlcv): fetched from the simulated exchange, stored exactly once with a
// watermark per stream, equal to the simulator's truth after faults, failures and reruns, and never
// past the last closed candle.
#include "raw/ohlcv.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "fake_exchange.hpp"
#include "raw_test_util.hpp"
#include "support/seeds.hpp"

namespace predlake::raw {
namespace {

using rawtest::Ms;
using rawtest::Table;
using rawtest::TempDir;

ExchangeFactory SimExchange(std::shared_ptr<const sim::Engine> engine) {
  return [engine](int64_t run_id) -> std::unique_ptr<exchange::Transport> {
    return std::make_unique<sim::InProcessExchangeTransport>(engine, sim::FaultSalt(run_id, 99));
  };
}

// Fails every request after the first `ok` ones: an exchange that goes away mid-fetch.
class DyingExchange final : public exchange::Transport {
 public:
  DyingExchange(std::unique_ptr<exchange::Transport> inner, int ok)
      : inner_(std::move(inner)), ok_(ok) {}
  Result<gql::HttpResponse> Get(const std::string& path) override {
    if (ok_-- > 0) return inner_->Get(path);
    return gql::HttpResponse{503, "down", std::nullopt};
  }
  std::string Describe() const override { return "dying exchange"; }

 private:
  std::unique_ptr<exchange::Transport> inner_;
  int ok_;
};

UpdateOptions CandleOptions(const config::SimConfig& world, int64_t end_ms, Sleeper* sleeper,
                            ExchangeFactory exchange) {
  UpdateOptions o;
  o.start_ms = Ms(world.start);
  o.end_ms = end_ms;
  o.now_ms = Ms(world.now);
  o.sleeper = sleeper;
  o.retry.jitter_seed = 1;
  o.exchange = std::move(exchange);
  return o;
}

// A lake fed by the simulated subgraph and the fake exchange, whose answers a test alters through
// `state`. Run may be called again after a test moves world.now (then call Restart()).
struct FakeExchangeLake {
  FakeExchangeLake(const std::string& start, const std::string& now)
      : world(rawtest::SmallWorld(start, now)),
        engine(rawtest::MakeEngine(world)),
        lake(rawtest::OpenTestLake(dir.path())) {}

  // The simulated world as of world.now.
  void Restart() { engine = rawtest::MakeEngine(world); }
  UpdateOptions Options(int64_t end_ms) {
    return CandleOptions(world, end_ms, &sleep, rawtest::FakeExchangeFactory(engine, state));
  }
  Result<UpdateReport> Run(const UpdateOptions& options) {
    return rawtest::RunUpdate(*lake, options, rawtest::SimFactory(engine), nullptr);
  }
  Result<UpdateReport> Run(int64_t end_ms) { return Run(Options(end_ms)); }

  TempDir dir;
  config::SimConfig world;
  std::shared_ptr<const sim::Engine> engine;
  std::unique_ptr<lake::Lake> lake;
  rawtest::NoSleep sleep;
  std::shared_ptr<rawtest::FakeExchangeState> state =
      std::make_shared<rawtest::FakeExchangeState>();
};

Table CandleRows(lake::Lake& lake) {
  auto r = lake.conn().Query("SELECT * FROM pdr_ohlcv ORDER BY timestamp, ID", "test read");
  EXPECT_TRUE(r.ok()) << r.status().message();
  Table out;
  if (!r.ok()) return out;
  for (auto& row : r->ToText()) {
    std::vector<std::string> line;
    for (size_t i = 0; i < row.size(); ++i) {
      std::string v = row[i].value_or("");
      if (lake::kOhlcvTable.columns[i].type == lake::ColumnType::kDecimal) {
        v = rawtest::NormalizeDecimal(v);
      }
      line.push_back(std::move(v));
    }
    out.push_back(std::move(line));
  }
  return out;
}

// The stored candles equal the simulator's below every stream's watermark (and none is above).
void ExpectCandlesEqualTruth(lake::Lake& lake, const sim::Engine& engine) {
  auto marks = lake.Watermarks();
  ASSERT_TRUE(marks.ok());
  std::map<std::string, int64_t> stream_mark;
  for (const auto& [name, m] : *marks) {
    if (name.rfind(lake::kOhlcvStreamPrefix, 0) == 0) stream_mark[name] = m.watermark_ms;
  }
  ASSERT_FALSE(stream_mark.empty());
  Table want;
  for (auto& row : rawtest::SimRows(engine, "pdr_ohlcv", INT64_MAX)) {
    const std::string stream = lake::OhlcvStreamName(row[1], row[2], row[3]);
    if (std::stoll(row[4]) < stream_mark[stream]) want.push_back(std::move(row));
  }
  Table got = CandleRows(lake);
  for (const auto& row : got) {
    EXPECT_LT(std::stoll(row[4]), stream_mark[lake::OhlcvStreamName(row[1], row[2], row[3])]);
  }
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i], want[i]) << "row " << i;
  }
}

TEST(RawOhlcvTest, OneFetchEqualsTheTruthAndStopsAtTheLastClosedCandle) {
  TempDir dir;
  auto world = rawtest::SmallWorld("2024-07-25", "2024-07-25_06:02:30");
  auto engine = rawtest::MakeEngine(world);
  auto lake = rawtest::OpenTestLake(dir.path());
  rawtest::NoSleep sleep;
  auto r =
      rawtest::RunUpdate(*lake, CandleOptions(world, Ms("2024-07-26"), &sleep, SimExchange(engine)),
                         rawtest::SimFactory(engine), nullptr);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->ohlcv.streams, 6);
  ExpectCandlesEqualTruth(*lake, *engine);
  // 5m streams end at 06:00 (the 06:00 candle closes at 06:05, after now), 1h ones at 06:00 too.
  EXPECT_EQ(rawtest::WatermarkOf(*lake, "pdr_ohlcv:binance:BTC/USDT:5m"), Ms("2024-07-25_06:00"));
  EXPECT_EQ(rawtest::WatermarkOf(*lake, "pdr_ohlcv:binance:BTC/USDT:1h"), Ms("2024-07-25_06:00"));
  auto open_late = lake->conn().QueryInt(
      "SELECT count(*) FROM pdr_ohlcv WHERE timestamp + CASE timeframe WHEN '5m' THEN 300000 "
      "ELSE 3600000 END > " +
          std::to_string(Ms(world.now)),
      "t");
  ASSERT_TRUE(open_late.ok());
  EXPECT_EQ(**open_late, 0);
  // 6 hours of 5m candles: 72 per 5m stream, more than one page only with small worlds' limits,
  // so the count is the check here.
  auto n = lake->conn().QueryInt("SELECT count(*) FROM pdr_ohlcv", "t");
  EXPECT_EQ(**n, 3 * (72 + 6));
  // A rerun stores nothing new.
  auto again =
      rawtest::RunUpdate(*lake, CandleOptions(world, Ms("2024-07-26"), &sleep, SimExchange(engine)),
                         rawtest::SimFactory(engine), nullptr);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->ohlcv.counts.rows_out, 0);
  ExpectCandlesEqualTruth(*lake, *engine);
}

TEST(RawOhlcvTest, ManyPagesFaultsFailuresAndRerunsEndWithEverything) {
  TempDir dir;
  // Four days of 5m candles: over 1000 per stream, so pages end inside the window.
  auto world = rawtest::SmallWorld("2024-07-22", "2024-07-26_00:00");
  world.num_predictoors = 3;
  world.faults.http_5xx = 0.1;
  world.faults.http_429 = 0.1;
  world.faults.timeout = 0.05;
  world.faults.malformed = 0.05;
  auto engine = rawtest::MakeEngine(world);
  auto lake = rawtest::OpenTestLake(dir.path());
  rawtest::NoSleep sleep;
  SCOPED_TRACE(test_support::SeedNote(7));
  std::mt19937_64 rng(test_support::PropertySeed(7));
  int failures = 0;
  for (int64_t to = Ms(world.start) + 86'400'000; to <= Ms(world.now); to += 86'400'000) {
    bool ok = false;
    for (int attempt = 0; attempt < 30 && !ok; ++attempt) {
      // The first run of each step (and some reruns) meet an exchange that dies after a few
      // requests: the run fails naming the stream,
      // what was stored stays with its watermark, and the rerun goes on from there.
      const bool dies = attempt == 0 || rng() % 2 == 0;
      const int ok_requests = static_cast<int>(rng() % 6);
      ExchangeFactory factory = SimExchange(engine);
      if (dies) {
        factory = [engine, ok_requests](int64_t run_id) -> std::unique_ptr<exchange::Transport> {
          return std::make_unique<DyingExchange>(
              std::make_unique<sim::InProcessExchangeTransport>(engine, sim::FaultSalt(run_id, 99)),
              ok_requests);
        };
      }
      UpdateOptions o = CandleOptions(world, to, &sleep, factory);
      o.tables = {"pdr_ohlcv", "pdr_truevals"};
      auto r = rawtest::RunUpdate(*lake, o, rawtest::SimFactory(engine), nullptr);
      // The exchange never fails the run: the subgraph table is stored whatever it does.
      ASSERT_TRUE(r.ok()) << r.status().message();
      EXPECT_EQ(rawtest::WatermarkOf(*lake, "pdr_truevals"), std::min(to, r->head_ms));
      ok = r->ohlcv.failures.empty();
      if (!ok) {
        ++failures;
        ASSERT_FALSE(r->warnings.empty());
        EXPECT_NE(r->warnings.back().find("HTTP 503"), std::string::npos) << r->warnings.back();
        EXPECT_NE(r->warnings.back().find("lake_ss.ohlcv"), std::string::npos)
            << r->warnings.back();
      }
      ExpectCandlesEqualTruth(*lake, *engine);
      if (HasFailure()) return;
    }
    ASSERT_TRUE(ok);
  }
  EXPECT_GT(failures, 2);
  EXPECT_GT(sleep.total.load(), 0);
  // At the head or the last candle final by the exchange's clock (its close
  // kCandleFinalityMarginMs before the exchange's now), whichever is first.
  const int64_t final_end = (Ms(world.now) - kCandleFinalityMarginMs) / 300'000 * 300'000;
  for (const auto& pair : world.pairs) {
    EXPECT_EQ(rawtest::WatermarkOf(*lake, lake::OhlcvStreamName("binance", pair, "5m")),
              std::min(Ms(world.now) - world.indexing_lag_ms, final_end));
  }
}

TEST(RawOhlcvTest, AnExchangeThatFailsNeverStopsTheSubgraph) {
  TempDir dir;
  auto world = rawtest::SmallWorld("2024-07-25", "2024-07-25_02:00");
  auto engine = rawtest::MakeEngine(world);
  auto lake = rawtest::OpenTestLake(dir.path());
  rawtest::NoSleep sleep;
  ExchangeFactory dead = [engine](int64_t) -> std::unique_ptr<exchange::Transport> {
    return std::make_unique<DyingExchange>(
        std::make_unique<sim::InProcessExchangeTransport>(engine), 0);
  };
  auto r = rawtest::RunUpdate(*lake, CandleOptions(world, Ms(world.now), &sleep, dead),
                              rawtest::SimFactory(engine), nullptr);
  ASSERT_TRUE(r.ok()) << r.status().message();
  // Every subgraph table reached the head.
  for (std::string_view t : lake::kRawTables) {
    EXPECT_EQ(rawtest::WatermarkOf(*lake, std::string(t)), r->head_ms) << t;
  }
  // One warning for the six streams, naming the error and the remedies.
  ASSERT_EQ(r->ohlcv.failures.size(), 6u);
  ASSERT_EQ(r->warnings.size(), 1u);
  EXPECT_NE(r->warnings[0].find("6 candle streams"), std::string::npos) << r->warnings[0];
  EXPECT_NE(r->warnings[0].find("HTTP 503"), std::string::npos) << r->warnings[0];
  EXPECT_NE(r->warnings[0].find("lake_ss.ohlcv_base_url"), std::string::npos) << r->warnings[0];
  EXPECT_NE(r->warnings[0].find("lake_ss.ohlcv: false"), std::string::npos) << r->warnings[0];
  // Every stream has a watermark, at the start, and the lake says why it stays there.
  auto marks = lake->Watermarks();
  ASSERT_TRUE(marks.ok());
  int streams = 0;
  for (const auto& [name, m] : *marks) {
    if (name.rfind(lake::kOhlcvStreamPrefix, 0) != 0) continue;
    ++streams;
    EXPECT_EQ(m.watermark_ms, Ms(world.start)) << name;
  }
  EXPECT_EQ(streams, 6);
  EXPECT_EQ(**lake->conn().QueryInt("SELECT count(*) FROM predlake_ohlcv_streams WHERE status = "
                                    "'failing' AND error LIKE '%HTTP 503%' AND "
                                    "failing_since_ms IS NOT NULL",
                                    "t"),
            6);
  // The ledger records the failures on the run, which succeeded.
  EXPECT_EQ(
      **lake->conn().QueryInt("SELECT count(*) FROM predlake_runs WHERE status = 'succeeded' AND "
                              "json_array_length(detail -> '$.ohlcv.failures') = 6",
                              "t"),
      1);
  // The next run with a working exchange fetches them and marks the streams ok again.
  auto again =
      rawtest::RunUpdate(*lake, CandleOptions(world, Ms(world.now), &sleep, SimExchange(engine)),
                         rawtest::SimFactory(engine), nullptr);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_TRUE(again->ohlcv.failures.empty());
  EXPECT_EQ(
      **lake->conn().QueryInt("SELECT count(*) FROM predlake_ohlcv_streams WHERE status = 'ok' AND "
                              "failing_since_ms IS NULL AND last_ok_ms IS NOT NULL",
                              "t"),
      6);
  ExpectCandlesEqualTruth(*lake, *engine);
}

int64_t CountOf(lake::Lake& lake, const std::string& sql) {
  auto n = lake.conn().QueryInt(sql, "test count");
  EXPECT_TRUE(n.ok()) << n.status().message();
  return n.ok() ? n->value_or(-1) : -1;
}

TEST(RawOhlcvTest, AMissingCandleHoldsTheWatermarkUntilItComesOrBecomesAKnownGap) {
  FakeExchangeLake f("2024-07-25", "2024-07-25_06:02:30");
  auto& lake = f.lake;
  auto& state = f.state;
  // A hole in the middle (03:00) and a short answer at the end (the last final candle, 05:55).
  state->missing["BTCUSDT5m"] = {Ms("2024-07-25_03:00"), Ms("2024-07-25_05:55")};
  const std::string btc = "pdr_ohlcv:binance:BTC/USDT:5m";
  auto run = [&](int64_t gap_after_ms) {
    UpdateOptions o = f.Options(Ms("2024-07-26"));
    o.ohlcv_gap_after_ms = gap_after_ms;
    auto r = f.Run(o);
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? r->ohlcv : OhlcvReport{};
  };
  // The watermark stops at the first missing candle; the candles after it are stored all the same.
  run(86'400'000);
  EXPECT_EQ(rawtest::WatermarkOf(*lake, btc), Ms("2024-07-25_03:00"));
  EXPECT_EQ(rawtest::WatermarkOf(*lake, "pdr_ohlcv:binance:ETH/USDT:5m"), Ms("2024-07-25_06:00"));
  EXPECT_EQ(CountOf(*lake,
                    "SELECT count(*) FROM pdr_ohlcv WHERE pair = 'BTC/USDT' AND timeframe = "
                    "'5m'"),
            72 - 2);
  // Asked again: still missing, nothing moves.
  run(86'400'000);
  EXPECT_EQ(rawtest::WatermarkOf(*lake, btc), Ms("2024-07-25_03:00"));
  // Missing for longer than ohlcv_gap_after (3 h after it closed, against 1 h): the middle one
  // becomes a known gap and the watermark moves on to the end's, which closed 2.5 minutes ago.
  auto gaps = run(3'600'000);
  EXPECT_EQ(gaps.gaps_recorded, 1);
  EXPECT_EQ(rawtest::WatermarkOf(*lake, btc), Ms("2024-07-25_05:55"));
  EXPECT_EQ(CountOf(*lake, "SELECT count(*) FROM predlake_candle_gaps WHERE stream = '" + btc +
                               "' AND open_ms = " + std::to_string(Ms("2024-07-25_03:00"))),
            1);
  // The exchange serves both at last: the end's is stored and the watermark reaches the end; the
  // known gap's candle is stored too (by the overlap or a later window: here, none asks for it).
  state->missing.clear();
  run(3'600'000);
  EXPECT_EQ(rawtest::WatermarkOf(*lake, btc), Ms("2024-07-25_06:00"));
  EXPECT_EQ(CountOf(*lake,
                    "SELECT count(*) FROM pdr_ohlcv WHERE pair = 'BTC/USDT' AND timeframe = "
                    "'5m' AND timestamp = " +
                        std::to_string(Ms("2024-07-25_05:55"))),
            1);
}

TEST(RawOhlcvTest, OnlyCandlesFinalByTheExchangesClockAreStoredAndRevisionsAreCorrected) {
  FakeExchangeLake f("2024-07-25", "2024-07-25_06:02:30");
  auto& lake = f.lake;
  auto& state = f.state;
  // The exchange's clock is 10 minutes behind ours: by it, 05:52:30 less the margin; the last
  // final 5m candle opens at 05:45 (closes 05:50).
  state->clock_offset_ms = -10 * 60'000;
  // And it still answers an interim close for the last of them.
  state->revised["BTCUSDT5m"][Ms("2024-07-25_05:45")] = "1.5";
  auto r = f.Run(Ms("2024-07-26"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(rawtest::WatermarkOf(*lake, "pdr_ohlcv:binance:BTC/USDT:5m"), Ms("2024-07-25_05:50"));
  EXPECT_EQ(CountOf(*lake,
                    "SELECT count(*) FROM pdr_ohlcv WHERE timeframe = '5m' AND timestamp "
                    ">= " +
                        std::to_string(Ms("2024-07-25_05:50"))),
            0);
  EXPECT_EQ(CountOf(*lake, "SELECT count(*) FROM pdr_ohlcv WHERE close = 1.5"), 1);
  // The run stored candles: every change is recorded for the ETL.
  EXPECT_GT(CountOf(*lake, "SELECT count(*) FROM predlake_candle_changes"), 0);
  ASSERT_TRUE(lake->conn().Execute("DELETE FROM predlake_candle_changes", "t").ok());
  // The next run re-reads the newest stored candles: the revised close is corrected, recorded as
  // a change of that candle alone, and counted.
  state->revised.clear();
  state->clock_offset_ms = 0;
  auto again = f.Run(Ms("2024-07-26"));
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->ohlcv.counts.rows_updated, 1);
  EXPECT_EQ(CountOf(*lake, "SELECT count(*) FROM pdr_ohlcv WHERE close = 1.5"), 0);
  EXPECT_EQ(CountOf(*lake,
                    "SELECT count(*) FROM predlake_candle_changes WHERE pair = 'BTC/USDT' "
                    "AND timeframe = '5m' AND from_ms <= " +
                        std::to_string(Ms("2024-07-25_05:45")) + " AND to_ms > " +
                        std::to_string(Ms("2024-07-25_05:45"))),
            1);
  ExpectCandlesEqualTruth(*lake, *f.engine);
}

TEST(RawOhlcvTest, ABanIsHonouredAcrossRuns) {
  FakeExchangeLake f("2024-07-25", "2024-07-25_06:00");
  auto& sleep = f.sleep;
  auto& state = f.state;
  state->refuse =
      gql::HttpResponse{418, R"({"code":-1003,"msg":"Way too many requests; IP banned"})", 600'000};
  auto at = [&](const std::string& now) {
    f.world.now = now;
    f.Restart();
    auto r = f.Run(Ms(now));
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? *r : UpdateReport{};
  };
  // One request, no wait inside the 10-minute ban, and its end kept in the lake.
  auto first = at("2024-07-25_06:00");
  EXPECT_EQ(state->requests, 1);
  EXPECT_EQ(sleep.total.load(), 0);
  ASSERT_TRUE(first.ohlcv.blocked_until_ms);
  EXPECT_EQ(*first.ohlcv.blocked_until_ms, Ms("2024-07-25_06:10"));
  ASSERT_EQ(first.warnings.size(), 1u);
  EXPECT_NE(first.warnings[0].find("2024-07-25T06:10:00"), std::string::npos) << first.warnings[0];
  // A run five minutes later (cron) sends nothing and says until when.
  auto second = at("2024-07-25_06:05");
  EXPECT_EQ(state->requests, 1);
  ASSERT_EQ(second.warnings.size(), 1u);
  EXPECT_NE(second.warnings[0].find("not to be called before 2024-07-25T06:10:00"),
            std::string::npos)
      << second.warnings[0];
  EXPECT_EQ(second.ohlcv.failures.size(), 6u);
  // After the ban, it asks again and gets everything.
  state->refuse.reset();
  auto third = at("2024-07-25_06:12");
  EXPECT_GT(state->requests, 1);
  EXPECT_TRUE(third.ohlcv.failures.empty());
  EXPECT_EQ(rawtest::WatermarkOf(*f.lake, "pdr_ohlcv:binance:BTC/USDT:5m"), Ms("2024-07-25_06:10"));
}

TEST(RawOhlcvTest, TheRequestWeightStaysUnderTheExchangesLimit) {
  FakeExchangeLake f("2024-07-25", "2024-07-25_06:00");
  auto& sleep = f.sleep;
  auto& state = f.state;
  // Seven requests (the clock and six streams) of a quarter of the limit each: asking on without
  // reading the weight would pass the limit at the fifth and meet a 429.
  state->weight_per_request = exchange::kRequestWeightPerMinute / 4;
  state->slept_ms = &sleep.total;
  auto r = f.Run(Ms(f.world.now));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(state->over_limit, 0);
  EXPECT_TRUE(r->ohlcv.failures.empty());
  EXPECT_GE(state->requests, 7);
  // One whole window waited per four requests, no more.
  EXPECT_EQ(sleep.total.load(), (state->requests - 1) / 4 * exchange::kWeightWindowMs);
  EXPECT_EQ(r->ohlcv.retries_by_kind["weight_pause"], (state->requests - 1) / 4);
  ExpectCandlesEqualTruth(*f.lake, *f.engine);
}

TEST(RawOhlcvTest, AStreamTheExchangeCannotServeIsSetAsideAlone) {
  FakeExchangeLake f("2024-07-25", "2024-07-25_02:00");
  auto& lake = f.lake;
  auto& state = f.state;
  auto& world = f.world;
  auto& sleep = f.sleep;
  state->unlisted = {"SOLUSDT"};
  auto r = f.Run(Ms(world.now));
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->ohlcv.failures.size(), 2u);
  for (const OhlcvStreamFailure& f : r->ohlcv.failures) {
    EXPECT_TRUE(f.set_aside);
    EXPECT_NE(f.stream.find("SOL/USDT"), std::string::npos);
    EXPECT_NE(f.error.find("Invalid symbol."), std::string::npos) << f.error;
  }
  EXPECT_EQ(r->warnings.size(), 2u);
  EXPECT_EQ(CountOf(*lake,
                    "SELECT count(*) FROM predlake_ohlcv_streams WHERE status = "
                    "'set_aside'"),
            2);
  EXPECT_EQ(CountOf(*lake, "SELECT count(*) FROM predlake_ohlcv_streams WHERE status = 'ok'"), 4);
  EXPECT_GT(CountOf(*lake, "SELECT count(*) FROM pdr_ohlcv WHERE pair = 'ETH/USDT'"), 0);

  // A name that is no pair at all (a token called "Test Token", Cyrillic letters) is set aside
  // before any request for it.
  std::vector<OhlcvStream> odd = {
      {"binance", "Test Token", "5m", lake::OhlcvStreamName("binance", "Test Token", "5m")},
      {"binance", "ВТС/USDT", "5m", lake::OhlcvStreamName("binance", "ВТС/USDT", "5m")},
      {"binance", "BTC/USDT", "7q", lake::OhlcvStreamName("binance", "BTC/USDT", "7q")}};
  OhlcvOptions o;
  o.start_ms = Ms(world.start);
  o.end_ms = Ms(world.now);
  o.now_ms = Ms(world.now);
  o.sleeper = &sleep;
  OhlcvReport report;
  const int before = state->requests;
  ASSERT_TRUE(
      FetchOhlcv(*lake, 99, odd, o, rawtest::FakeExchangeFactory(f.engine, state), report).ok());
  EXPECT_EQ(state->requests, before + 1);  // the clock only
  ASSERT_EQ(report.failures.size(), 3u);
  for (const OhlcvStreamFailure& f : report.failures) EXPECT_TRUE(f.set_aside) << f.stream;
  EXPECT_EQ(report.warnings.size(), 3u);
}

TEST(RawOhlcvTest, ImportsPdrBackendOhlcvParquetFiles) {
  // pdr-backend's layout: <exchange>_<BASE-QUOTE>_<timeframe>.parquet, timestamp Int64 (open ms),
  // open..volume Float64.
  TempDir dir;
  auto lake = rawtest::OpenTestLake((std::filesystem::path(dir.path()) / "lake").string());
  const std::string folder = (std::filesystem::path(dir.path()) / "lake_data").string();
  std::filesystem::create_directories(folder);
  const std::string file = folder + "/binance_BTC-USDT_5m.parquet";
  ASSERT_TRUE(lake->conn()
                  .Execute("COPY (SELECT (1721865600000 + 300000 * i)::BIGINT AS timestamp, "
                           "(60000 + i * 0.01)::DOUBLE AS open, 60010.5::DOUBLE AS high, "
                           "59990.25::DOUBLE AS low, (60000.01 + i)::DOUBLE AS close, "
                           "12.345::DOUBLE AS volume FROM range(12) AS t(i)) TO " +
                               duck::QuoteString(file) + " (FORMAT parquet)",
                           "write a pdr-backend file")
                  .ok());
  ImportOptions o;
  o.paths = {folder};
  auto r = rawtest::RunImport(*lake, o, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().message();
  auto n = lake->conn().QueryInt("SELECT count(*) FROM pdr_ohlcv", "t");
  EXPECT_EQ(**n, 12);
  // Prices keep their decimal digits (the shortest text of the double).
  auto close = lake->conn().Query(
      "SELECT ID, exchange, pair, timeframe, CAST(close AS VARCHAR) FROM pdr_ohlcv ORDER BY "
      "timestamp LIMIT 1",
      "t");
  ASSERT_TRUE(close.ok());
  auto rows = close->ToText();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(*rows[0][0], "binance|BTC/USDT|5m|1721865600000");
  EXPECT_EQ(*rows[0][2], "BTC/USDT");
  EXPECT_EQ(*rows[0][4], "60000.010000000000000000");
  // The stream's watermark covers the file: its first open time to the last plus one candle.
  auto mark = lake->GetWatermark("pdr_ohlcv:binance:BTC/USDT:5m");
  ASSERT_TRUE(mark.ok() && *mark);
  EXPECT_EQ((*mark)->start_ms, 1721865600000);
  EXPECT_EQ((*mark)->watermark_ms, 1721865600000 + 12 * 300000);
  // Twice changes nothing.
  auto again = rawtest::RunImport(*lake, o, nullptr);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(**lake->conn().QueryInt("SELECT count(*) FROM pdr_ohlcv", "t"), 12);
}

}  // namespace
}  // namespace predlake::raw
