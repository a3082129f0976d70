// module: predlake_jobs
// Builds one synthetic lake for the scale table (docs/scale.md, bench/scale.sh) and times, in this
// process, what needs the library: the first ETL run, `etl rebuild` and the bare build of the five
// built tables (one CREATE TABLE AS each, bench::kBuiltBaselineSql, checked equal to the rebuild's
// tables), each including DuckDB's CHECKPOINT to disk, as a user waits for it (wall and CPU
// seconds). The lake is kept for the binary's measurements
// (describe, validate, update, etl drop): its raw tables are the synthetic world of
// bench/synthetic_world.hpp up to the end, their watermarks at the end, the network recorded as
// sim, so that `predlake update` with a sim world starting at the end fetches the hours after it.
// Usage: bench_scale_lake DIR PREDICTIONS. Prints "key value" lines (seconds, counts, the end).
// The first ETL and `etl rebuild` run as the command line runs them (jobs::RunEtl, which opens the
// lake itself); PREDLAKE_BENCH_CHUNK_DAYS=N gives them lake_ss.checkpoint_period's chunks of N
// days, one run each: at 60M predictions one window needs more memory than the machine has.
// PREDLAKE_BENCH_REUSE_RAW=1 keeps the raw tables of a lake this program generated in DIR before
// (same size) and builds from them.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "bench_support.hpp"
#include "common/time.hpp"
#include "config/config.hpp"
#include "duck/duck.hpp"
#include "etl/etl.hpp"
#include "jobs/etl.hpp"
#include "lake/lake.hpp"
#include "source/sim/world.hpp"
#include "synthetic_world.hpp"

namespace {

using namespace predlake;
using bench::Check;
using bench::Seconds;

// The synthetic world has no slot entities; the subgraph has one per predicted slot, and
// `validate`'s slot_gaps rightly fails without them. pdr_slots is no ETL input, so adding them
// changes nothing built. The raw tables have no key (schema 2), so the slots already there are
// left out by an anti-join, as the raw store does.
constexpr const char* kSlots = R"sql(
INSERT INTO pdr_slots
SELECT contract || '-' || slot, slot * 1000, slot, NULL, NULL, NULL, NULL
FROM (SELECT DISTINCT contract, slot FROM pdr_predictions) AS p
WHERE slot * 1000 >= (SELECT start_ms FROM predlake_watermarks WHERE table_name = 'pdr_slots')
  AND slot * 1000 < (SELECT watermark_ms FROM predlake_watermarks WHERE table_name = 'pdr_slots')
  AND NOT EXISTS (SELECT 1 FROM pdr_slots AS stored WHERE stored.ID = p.contract || '-' || p.slot)
ORDER BY slot;
)sql";

// Every feed's candles over the history, with the streams' watermarks at the end, as a `predlake
// update` from the start leaves them: the first update of bench/scale.sh then fetches the hour
// after the end, as every later one does, instead of backfilling the whole history's candles. The
// closes agree with the synthetic truevals (`validate`'s trueval_vs_exchange passes): the candle
// opening at t closes one above or below the one before, as the trueval of slot t + epoch says
// (the hash of bench/synthetic_world.hpp). In time order, as a fetch of the history in chunks
// stores them (zone maps on `timestamp` then prune). Names and IDs as lake::OhlcvStreamName and
// lake::OhlcvId spell them (checked in main).
constexpr const char* kCandles = R"sql(
INSERT INTO pdr_ohlcv
SELECT 'binance|' || pair || '|' || timeframe || '|' || t, 'binance', pair, timeframe, t,
       close - step, greatest(close, close - step) + 1, least(close, close - step) - 1, close, 1000
FROM (SELECT *, (10000 + sum(step) OVER (PARTITION BY pair, timeframe ORDER BY t))::DECIMAL(18, 2)
                  AS close
      FROM (SELECT f.pair, f.timeframe, g.t,
                   CASE WHEN hash(f.contract, g.t // 1000 + f.epoch, 'tv') % 2 = 0 THEN 1 ELSE -1 END
                     AS step
            FROM bench_feeds AS f,
                 generate_series({T0} * 1000, {END} * 1000 - f.epoch * 1000, f.epoch * 1000)
                   AS g(t)))
ORDER BY t, pair, timeframe;
INSERT INTO predlake_watermarks
SELECT DISTINCT 'pdr_ohlcv:binance:' || pair || ':' || timeframe, {T0} * 1000, {END} * 1000, 0,
       NULL
FROM bench_feeds;
)sql";

// The candle of every stream that opens one epoch before the end closes where the simulated world
// that continues the lake has it (bench/scale.sh: seed 42 and the default feeds, starting at the
// end): that world's first trueval, of slot end + epoch, compares this candle with the world's own
// next one, so `validate`'s trueval_vs_exchange holds across the seam too. No slot of the lake
// reads this candle (its last slot, end - epoch, compares the two before it).
std::string SeamCandlesSql(int64_t end_ms) {
  config::SimConfig world_config;
  auto world = sim::World::Create(world_config, end_ms);
  Check(world.status(), "the simulated world");
  std::string sql;
  for (const sim::Feed& f : (*world)->feeds()) {
    const int64_t open_s = end_ms / 1000 - f.epoch;
    const int64_t cents = (*world)->CandleCloseCents(f.index, open_s);
    std::string close = "(";
    close += std::to_string(cents);
    close += " / 100)::DECIMAL(18, 2)";
    sql += "UPDATE pdr_ohlcv SET close = " + close + ", high = greatest(high, " + close +
           "), low = least(low, " + close + ") WHERE ID = " +
           duck::QuoteString(lake::OhlcvId(f.source, f.pair, f.timeframe, open_s * 1000)) + ";\n";
  }
  return sql;
}

// The predictions submitted in the lake's last epoch are for the first slot at or after its end:
// neither the lake (cut at its watermark) nor the simulated world that continues it (which starts
// at the end) has that slot's entity, so `validate`'s slot_gaps would fail for them after the first
// update. The synthetic lake stops at its last whole slot instead.
// Applied to the source before it is loaded: a DELETE from the raw table would leave DuckDB's
// statistics of its timestamps loose, which `describe` then answers with a scan.
constexpr const char* kCutAtEnd =
    "DELETE FROM bench_src_pdr_predictions WHERE slot * 1000 >= {END} * 1000;";

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[2]) == "--add-slots") {
    lake::OpenOptions open;
    open.mode = lake::Mode::kWrite;
    open.command = "bench";
    open.create = false;
    auto opened = lake::Lake::Open(argv[1], open);
    Check(opened.status(), "open lake");
    Check((*opened)->conn().Execute(std::string(kSlots) + "CHECKPOINT;", "slots"), "slots");
    return 0;
  }
  if (argc != 3) {
    std::fprintf(stderr, "usage: bench_scale_lake DIR PREDICTIONS | DIR --add-slots\n");
    return 2;
  }
  const std::string dir = argv[1];
  const int64_t size = std::atoll(argv[2]);
  const char* reuse_raw = std::getenv("PREDLAKE_BENCH_REUSE_RAW");
  const bool reuse = reuse_raw != nullptr && std::string(reuse_raw) == "1" &&
                     std::filesystem::exists(std::filesystem::path(dir) / "lake.duckdb");
  if (!reuse) std::filesystem::remove_all(dir);
  const int64_t hours =
      std::max<int64_t>(3, static_cast<int64_t>(size / bench::kPredictionsPerHour));
  const int64_t end_ms = bench::kT0 + hours * bench::kHourMs;
  lake::OpenOptions open;
  open.mode = lake::Mode::kWrite;
  open.command = "bench";
  // The machine is shared: PREDLAKE_BENCH_MEMORY_LIMIT (e.g. 4GB) caps DuckDB, which then spills.
  if (const char* limit = std::getenv("PREDLAKE_BENCH_MEMORY_LIMIT")) open.memory_limit = limit;
  auto open_lake = [&] {
    auto opened = lake::Lake::Open(dir, open);
    Check(opened.status(), "open lake");
    return std::move(opened).value();
  };
  auto lake = open_lake();
  auto& conn = lake->conn();
  auto start = std::chrono::steady_clock::now();
  if (reuse) {
    std::printf("raw_s reused\n");
  } else {
    Check(conn.Execute(bench::Fill(bench::kGenerate, {{"T0", bench::kT0 / 1000},
                                                      {"END", end_ms / 1000},
                                                      {"CLAIM", 6 * bench::kHourMs}}),
                       "generate"),
          "generate");
    Check(conn.Execute(bench::Fill(kCutAtEnd, {{"END", end_ms / 1000}}), "cut"), "cut");
    Check(conn.Execute(bench::Fill(bench::kLoad, {{"FROM", 0}, {"TO", end_ms}}), "load"), "load");
    for (std::string_view t : lake::kRawTables) {
      Check(lake->SetWatermark(t, {bench::kT0, end_ms}, 0), "watermark");
    }
    Check(lake->SetMeta(lake::kMetaNetwork, "sim"), "network");
    Check(conn.Execute(kSlots, "slots"), "slots");
    Check(conn.Execute(bench::Fill(kCandles, {{"T0", bench::kT0 / 1000}, {"END", end_ms / 1000}}),
                       "candles"),
          "candles");
    Check(conn.Execute(SeamCandlesSql(end_ms), "seam candles"), "seam candles");
    const std::string spelled =
        "SELECT count(*) FROM pdr_ohlcv JOIN predlake_watermarks ON table_name = " +
        duck::QuoteString(lake::OhlcvStreamName("binance", "BTC/USDT", "5m")) + " WHERE ID = " +
        duck::QuoteString(lake::OhlcvId("binance", "BTC/USDT", "5m", bench::kT0 + 300'000));
    auto found = conn.QueryInt(spelled, "candle names");
    Check(found.status(), "candle names");
    if (found->value_or(0) != 1)
      Check(Status::Internal("the candles' names are not the lake's"), "candles");
    Check(conn.Execute("DROP TABLE bench_feeds; DROP TABLE bench_src_pdr_predictions; DROP TABLE "
                       "bench_src_pdr_truevals; DROP TABLE bench_src_pdr_payouts; DROP TABLE "
                       "bench_src_pdr_subscriptions; DROP TABLE bench_src_pdr_slots; CHECKPOINT",
                       "drop sources"),
          "drop sources");
    std::printf("raw_s %.2f\n", Seconds(start));
  }

  // The job opens the lake as its writer: this process closes it first and opens it again after.
  // The time includes the job's open and its checkpoint at close, as a user waits for them.
  const char* chunk_days = std::getenv("PREDLAKE_BENCH_CHUNK_DAYS");
  jobs::WriterEnv env;
  env.lake_dir = dir;
  env.memory_limit = open.memory_limit;
  int chunks = 0;
  double cpu = 0;  // CPU seconds of the last run_etl
  auto run_etl = [&](jobs::EtlJob job) {
    lake.reset();
    const auto begin = std::chrono::steady_clock::now();
    jobs::EtlRequest request;
    request.job = job;
    request.options.st_ms = bench::kT0;
    request.chunk_ms = chunk_days ? std::atoll(chunk_days) * 86'400'000 : 0;
    chunks = 1;
    request.on_chunk = [&](const etl::RunReport&) { ++chunks; };
    const double cpu_begin = bench::CpuSeconds();
    Check(jobs::RunEtl(env, request).status(), jobs::EtlCommand(job).c_str());
    const double seconds = Seconds(begin);
    cpu = bench::CpuSeconds() - cpu_begin;
    lake = open_lake();
    return seconds;
  };
  std::printf("first_etl_s %.2f\n", run_etl(jobs::EtlJob::kUpdate));
  std::printf("first_etl_cpu_s %.2f\n", cpu);
  std::printf("etl_chunks %d\n", chunks);

  // PREDLAKE_BENCH_SKIP_REBUILD=1 leaves out `etl rebuild` and the baseline (a 10M lake on a
  // loaded machine takes long enough without them); their lines are then missing.
  const char* skip = std::getenv("PREDLAKE_BENCH_SKIP_REBUILD");
  if (skip == nullptr || std::string(skip) != "1") {
    std::printf("rebuild_s %.2f\n", run_etl(jobs::EtlJob::kRebuild));
    std::printf("rebuild_cpu_s %.2f\n", cpu);

    start = std::chrono::steady_clock::now();
    const double cpu_start = bench::CpuSeconds();
    // The bare build has no chunks: past the machine's memory it fails, which is a result (the
    // line says so), not the end of the measurement.
    Status baseline = lake->conn().Execute(
        bench::Fill(bench::kBuiltBaselineSql, {{"S", bench::kT0}, {"F", end_ms}}) + "\nCHECKPOINT;",
        "baseline");
    if (baseline.ok()) {
      std::printf("baseline_s %.2f\n", Seconds(start));
      std::printf("baseline_cpu_s %.2f\n", bench::CpuSeconds() - cpu_start);
      // The bare build gives the rebuild's tables, run_id aside.
      for (const auto& [bare, built] : bench::kBuiltBaselineTables) {
        const std::string differ = std::string("SELECT (SELECT count(*) FROM (FROM ") + bare +
                                   " EXCEPT ALL SELECT * EXCLUDE (run_id) FROM " + built +
                                   ")) + (SELECT count(*) FROM (SELECT * EXCLUDE (run_id) FROM " +
                                   built + " EXCEPT ALL FROM " + bare + "))";
        auto rows = lake->conn().QueryInt(differ, "compare the bare build");
        Check(rows.status(), "compare the bare build");
        if (rows->value_or(0) != 0) {
          Check(Status::Internal(std::string(bare) + " differs from " + built + " in " +
                                 std::to_string(rows->value_or(0)) + " rows"),
                "the bare build");
        }
      }
    } else {
      std::printf("baseline_s failed\n");
      std::fprintf(stderr, "baseline: %s\n", baseline.message().c_str());
    }
    std::string drop;
    for (const auto& [bare, built] : bench::kBuiltBaselineTables) {
      drop += std::string("DROP TABLE IF EXISTS ") + bare + "; ";
    }
    Check(lake->conn().Execute(drop + "CHECKPOINT", "drop baseline"), "drop baseline");
  }

  auto count = [&](const char* sql) {
    auto v = lake->conn().QueryInt(sql, "count");
    Check(v.status(), "count");
    return v->value_or(0);
  };
  std::printf("predictions %lld\n",
              static_cast<long long>(count("SELECT count(*) FROM pdr_predictions")));
  std::printf("payouts %lld\n", static_cast<long long>(count("SELECT count(*) FROM pdr_payouts")));
  std::printf("end_ms %lld\n", static_cast<long long>(end_ms));
  std::printf("end %s\n", FormatTime(end_ms).c_str());
  return 0;
}
