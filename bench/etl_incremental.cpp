// module: predlake_etl
// The incremental ETL against a rebuild and against one plain DuckDB query (docs/etl.md,
// "Performance"). For each lake size it builds raw tables with N predictions (20 feeds, 5m and 1h,
// ~3,500 predictions an hour, truevals, payouts claimed seconds to hours later, a few canceled
// slots, subscriptions), runs the ETL up to one hour before the end, adds the last hour of raw
// events and then, in the same process, times:
//   incremental  `etl update` over that hour (new predictions plus the truevals and payouts that
//                touch the last hours), rolled back with `etl drop` between repetitions;
//   rebuild      `etl rebuild` of the whole lake;
//   bronze_query the fastest single query we found that produces the same bronze_pdr_predictions
//                rows (CREATE TABLE AS, ordered like the ETL's output; checked equal).
// Sizes: PREDLAKE_BENCH_SIZES (comma separated, default 1000000); e.g. 1000000,10000000; claim
// delays: PREDLAKE_BENCH_CLAIM_HOURS (default 6). The lake
// lives under PREDLAKE_BENCH_DIR (default the system temp folder) and is removed at the end unless
// PREDLAKE_BENCH_KEEP is set. A summary with the ratios is printed after the benchmarks.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "common/time.hpp"
#include "etl/etl.hpp"
#include "lake/lake.hpp"
#include "synthetic_world.hpp"

namespace predlake::etl {
namespace {

using bench::Begin;
using bench::Check;
using bench::CpuSeconds;
using bench::Fill;
using bench::kGenerate;
using bench::kHourMs;
using bench::kLoad;
using bench::kPredictionsPerHour;
using bench::kT0;
using bench::Seconds;

namespace fs = std::filesystem;

// How late the slow half of the claims come: PREDLAKE_BENCH_CLAIM_HOURS, default 6 ("payouts that
// touch the last hours"). 48 makes every incremental run fold payouts two days back.
int64_t ClaimHours() {
  const char* v = std::getenv("PREDLAKE_BENCH_CLAIM_HOURS");
  return v && *v ? std::max<int64_t>(1, std::atoll(v)) : 6;
}

// Wall and CPU seconds of one call.
template <typename F>
std::pair<double, double> Measure(F&& f) {
  auto start = std::chrono::steady_clock::now();
  double cpu = CpuSeconds();
  f();
  return {Seconds(start), CpuSeconds() - cpu};
}

// One lake of a given size, built once and shared by the three benchmarks of that size.
struct BenchLake {
  int64_t size = 0;
  int64_t end_ms = 0;  // the end of the data
  int64_t cut_ms = 0;  // end - 1 h: the checkpoint before the incremental run
  std::string dir;
  std::unique_ptr<lake::Lake> lake;
  int64_t predictions = 0;
  int64_t new_predictions = 0, new_payouts = 0, new_truevals = 0;
  double build_s = 0, first_etl_s = 0;
  std::vector<std::pair<std::string, double>> incremental_steps;
  std::vector<std::pair<std::string, double>> rebuild_steps;
  double incremental_last_wall = 0;
  std::map<std::string, std::vector<double>> times;  // benchmark -> seconds per repetition
};

std::map<int64_t, std::unique_ptr<BenchLake>>& Lakes() {
  static std::map<int64_t, std::unique_ptr<BenchLake>> lakes;
  return lakes;
}

BenchLake& GetLake(int64_t size) {
  auto& slot = Lakes()[size];
  if (slot) return *slot;
  slot = std::make_unique<BenchLake>();
  BenchLake& b = *slot;
  b.size = size;
  const char* base = std::getenv("PREDLAKE_BENCH_DIR");
  b.dir = (fs::path(base ? base : fs::temp_directory_path().string()) /
           ("predlake_bench_etl_" + std::to_string(size)))
              .string();
  fs::remove_all(b.dir);
  const int64_t hours = std::max<int64_t>(3, static_cast<int64_t>(size / kPredictionsPerHour));
  b.end_ms = kT0 + hours * kHourMs;
  b.cut_ms = b.end_ms - kHourMs;
  lake::OpenOptions open;
  open.mode = lake::Mode::kWrite;
  open.command = "bench";
  const char* threads = std::getenv("PREDLAKE_BENCH_THREADS");
  open.threads = threads ? std::atoi(threads) : 2;
  auto lake = lake::Lake::Open(b.dir, open);
  Check(lake.status(), "open lake");
  b.lake = std::move(lake).value();
  auto& conn = b.lake->conn();

  auto start = std::chrono::steady_clock::now();
  std::fprintf(stderr, "[%lld predictions] generating %lld hours of raw events...\n",
               static_cast<long long>(size), static_cast<long long>(hours));
  Check(conn.Execute(
            Fill(kGenerate,
                 {{"T0", kT0 / 1000}, {"END", b.end_ms / 1000}, {"CLAIM", ClaimHours() * kHourMs}}),
            "generate"),
        "generate");
  Check(conn.Execute(Fill(kLoad, {{"FROM", 0}, {"TO", b.cut_ms}}), "load"), "load");
  for (std::string_view t : lake::kRawTables) {
    Check(b.lake->SetWatermark(t, {kT0, b.cut_ms}, 0), "watermark");
  }
  Check(conn.Execute("CHECKPOINT", "checkpoint"), "checkpoint");
  b.build_s = Seconds(start);

  start = std::chrono::steady_clock::now();
  std::fprintf(stderr, "[%lld predictions] first ETL run...\n", static_cast<long long>(size));
  UpdateOptions options;
  options.faults = {};
  options.st_ms = kT0;
  {
    lake::Run run = Begin(*b.lake, "etl update");
    Check(Update(*b.lake, run, options).status(), "first etl update");
  }
  Check(conn.Execute("CHECKPOINT", "checkpoint"), "checkpoint");
  b.first_etl_s = Seconds(start);

  // The last hour arrives.
  Check(conn.Execute(Fill(kLoad, {{"FROM", b.cut_ms}, {"TO", b.end_ms}}), "load"), "load hour");
  for (std::string_view t : lake::kRawTables) {
    Check(b.lake->SetWatermark(t, {kT0, b.end_ms}, 0), "watermark");
  }
  Check(conn.Execute("CHECKPOINT", "checkpoint"), "checkpoint");
  auto count = [&](const std::string& sql) {
    auto v = conn.QueryInt(sql, "count");
    Check(v.status(), "count");
    return v->value_or(0);
  };
  std::string hour = " WHERE timestamp >= " + std::to_string(b.cut_ms);
  b.predictions = count("SELECT count(*) FROM pdr_predictions");
  b.new_predictions = count("SELECT count(*) FROM pdr_predictions" + hour);
  b.new_payouts = count("SELECT count(*) FROM pdr_payouts" + hour);
  b.new_truevals = count("SELECT count(*) FROM pdr_truevals" + hour);
  return b;
}

void BM_Incremental(benchmark::State& state) {
  BenchLake& b = GetLake(state.range(0));
  UpdateOptions options;
  options.faults = {};
  for (auto _ : state) {
    Result<RunReport> report = Status::Internal("not run");
    lake::Run run = Begin(*b.lake, "etl update");
    auto [wall, cpu] = Measure([&] { report = Update(*b.lake, run, options); });
    Check(report.status(), "incremental update");
    if (report->window_start_ms != b.cut_ms || report->window_end_ms != b.end_ms) {
      Check(Status::Internal("unexpected window"), "incremental update");
    }
    state.SetIterationTime(wall);
    b.times["incremental"].push_back(wall);
    b.times["incremental_cpu"].push_back(cpu);
    b.incremental_steps = report->step_ms;
    b.incremental_last_wall = wall;
    lake::Run drop = Begin(*b.lake, "etl drop");
    Check(Drop(*b.lake, drop, b.cut_ms, options).status(), "roll back the hour");
  }
  state.counters["new_predictions"] = static_cast<double>(b.new_predictions);
  state.counters["new_payouts"] = static_cast<double>(b.new_payouts);
}

// The rebuild and the baseline query alternate, so that both meet the same machine load.
void BM_RebuildAndQuery(benchmark::State& state) {
  BenchLake& b = GetLake(state.range(0));
  UpdateOptions options;
  options.faults = {};
  std::string sql = Fill(bench::kBronzeBaselineSql, {{"S", kT0}, {"F", b.end_ms}});
  for (auto _ : state) {
    Result<RunReport> report = Status::Internal("not run");
    lake::Run run = Begin(*b.lake, "etl rebuild");
    auto [wall, cpu] = Measure([&] { report = Rebuild(*b.lake, run, options); });
    Check(report.status(), "rebuild");
    b.rebuild_steps = report->step_ms;
    b.times["rebuild"].push_back(wall);
    b.times["rebuild_cpu"].push_back(cpu);
    state.SetIterationTime(wall);
    auto [qwall, qcpu] =
        Measure([&] { Check(b.lake->conn().Execute(sql, "baseline"), "baseline query"); });
    b.times["bronze_query"].push_back(qwall);
    b.times["bronze_query_cpu"].push_back(qcpu);
  }
  state.counters["predictions"] = static_cast<double>(b.predictions);
  // The baseline is only a baseline if it builds the same table.
  auto diff = b.lake->conn().QueryInt(
      "SELECT count(*) FROM ((FROM bench_bronze EXCEPT ALL SELECT * EXCLUDE (run_id) FROM "
      "bronze_pdr_predictions) UNION ALL (SELECT * EXCLUDE (run_id) FROM bronze_pdr_predictions "
      "EXCEPT ALL FROM bench_bronze))",
      "compare");
  Check(diff.status(), "compare baseline");
  if (diff->value_or(-1) != 0) Check(Status::Internal("baseline differs"), "compare baseline");
}

double Best(const std::vector<double>& v) {
  return v.empty() ? 0 : *std::min_element(v.begin(), v.end());
}

void PrintSummary() {
  std::printf(
      "\nETL benchmark summary (slow claims up to %lld h late): best of the repetitions, wall "
      "seconds (CPU seconds, all threads)\n",
      static_cast<long long>(ClaimHours()));
  std::printf("%11s %8s %8s %16s %16s %16s %14s %14s\n", "predictions", "hour_new", "hour_pay",
              "incremental", "rebuild", "bronze_query", "rebuild/incr", "rebuild/query");
  for (auto& [size, b] : Lakes()) {
    auto& t = b->times;
    double inc = Best(t["incremental"]), inc_cpu = Best(t["incremental_cpu"]);
    double reb = Best(t["rebuild"]), reb_cpu = Best(t["rebuild_cpu"]);
    double query = Best(t["bronze_query"]), query_cpu = Best(t["bronze_query_cpu"]);
    std::printf(
        "%11lld %8lld %8lld %7.3f (%6.3f) %7.2f (%6.2f) %7.2f (%6.2f) %6.0fx (%4.0fx) %5.2fx "
        "(%4.2fx)\n",
        static_cast<long long>(b->predictions), static_cast<long long>(b->new_predictions),
        static_cast<long long>(b->new_payouts), inc, inc_cpu, reb, reb_cpu, query, query_cpu,
        reb / inc, reb_cpu / inc_cpu, reb / query, reb_cpu / query_cpu);
  }
  for (auto& [size, b] : Lakes()) {
    std::printf("\n[%lld] setup: raw %.1fs, first ETL run %.1fs\n  incremental steps (ms):",
                static_cast<long long>(b->predictions), b->build_s, b->first_etl_s);
    double total = 0;
    for (const auto& [step, ms] : b->incremental_steps) {
      std::printf(" %s=%.1f", step.c_str(), ms);
      total += ms;
    }
    std::printf("\n  (last repetition: steps %.1f ms of %.1f ms)", total,
                b->incremental_last_wall * 1000);
    std::printf("\n  rebuild steps (ms):");
    for (const auto& [step, ms] : b->rebuild_steps) std::printf(" %s=%.1f", step.c_str(), ms);
    std::printf("\n");
  }
  if (Lakes().size() > 1) {
    auto& first = Lakes().begin()->second->times;
    auto& last = Lakes().rbegin()->second->times;
    std::printf("\nincremental growth from the smallest to the largest lake: %.2fx (CPU %.2fx)\n",
                Best(last["incremental"]) / Best(first["incremental"]),
                Best(last["incremental_cpu"]) / Best(first["incremental_cpu"]));
  }
}

}  // namespace
}  // namespace predlake::etl

int main(int argc, char** argv) {
  using namespace predlake::etl;
  for (int64_t size : predlake::bench::SizesFromEnv(1'000'000)) {
    const int reps = size >= 5'000'000 ? 3 : 5;
    benchmark::RegisterBenchmark("etl/incremental_hour", BM_Incremental)
        ->Arg(size)
        ->UseManualTime()
        ->Iterations(5)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark("etl/rebuild_then_bronze_query", BM_RebuildAndQuery)
        ->Arg(size)
        ->UseManualTime()
        ->Iterations(reps)
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  PrintSummary();
  for (auto& [size, b] : Lakes()) {
    std::string dir = b->dir;
    b->lake.reset();
    std::error_code ec;
    if (!std::getenv("PREDLAKE_BENCH_KEEP")) std::filesystem::remove_all(dir, ec);
  }
  benchmark::Shutdown();
  return 0;
}
