// module: predlake_raw
// Raw ingestion speed: records/s of a multi-day backfill from the simulated network (in-process and
// over HTTP from `sim serve`), fetching alone, and the exactly-once insert path next to DuckDB's
// plain appender into a table without a key, for the same rows in the same run.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <thread>

#include "common/time.hpp"
#include "lake/lake.hpp"
#include "raw/contracts.hpp"
#include "raw/fetch.hpp"
#include "raw/store.hpp"
#include "raw/update.hpp"
#include "source/gql/http_transport.hpp"
#include "source/sim/server.hpp"
#include "source/sim/subgraph.hpp"
#include "source/sim/transport.hpp"

namespace predlake::raw {
namespace {

namespace fs = std::filesystem;

// The default world, pinned a week after its start.
constexpr const char* kNow = "2024-07-26";
constexpr int64_t kDayMs = 86'400'000;

int64_t NowMs() { return *ParseTime(kNow, 0); }

std::shared_ptr<const sim::Engine> Engine() {
  static std::shared_ptr<const sim::Engine> engine = [] {
    config::SimConfig c;
    c.start = "2024-07-18";
    c.now = kNow;
    c.indexing_lag_ms = 0;
    return *sim::Engine::Create(c, NowMs());
  }();
  return engine;
}

TransportFactory InProcess() {
  auto engine = Engine();
  return [engine](const TransportUse&) -> std::unique_ptr<gql::Transport> {
    return std::make_unique<sim::InProcessTransport>(engine);
  };
}

class TempLake {
 public:
  TempLake() {
    static int n = 0;
    dir_ = fs::temp_directory_path() /
           ("predlake_bench_raw_" + std::to_string(getpid()) + "_" + std::to_string(n++));
    fs::remove_all(dir_);
    lake::OpenOptions o;
    o.mode = lake::Mode::kWrite;
    o.command = "bench";
    lake_ = std::move(lake::Lake::Open(dir_.string(), o)).value();
  }
  ~TempLake() {
    lake_.reset();
    fs::remove_all(dir_);
  }
  lake::Lake& lake() { return *lake_; }

 private:
  fs::path dir_;
  std::unique_ptr<lake::Lake> lake_;
};

void RunUpdate(benchmark::State& state, const TransportFactory& factory) {
  const int64_t days = state.range(0);
  int64_t records = 0;
  for (auto _ : state) {
    state.PauseTiming();
    {
      TempLake lake;
      UpdateOptions o;
      o.end_ms = NowMs();
      o.start_ms = o.end_ms - days * kDayMs;
      auto run = lake.lake().BeginRun("raw update");
      if (!run.ok()) {
        state.SkipWithError(run.status().message().c_str());
        break;
      }
      state.ResumeTiming();
      auto report = Update(lake.lake(), *run, o, factory, nullptr);
      state.PauseTiming();
      if (!report.ok()) {
        state.SkipWithError(report.status().message().c_str());
        break;
      }
      for (const TableReport& t : report->tables) records += t.counts.rows_out;
    }
    state.ResumeTiming();
  }
  state.counters["records"] =
      benchmark::Counter(static_cast<double>(records), benchmark::Counter::kAvgIterations);
  state.counters["records/s"] =
      benchmark::Counter(static_cast<double>(records), benchmark::Counter::kIsRate);
}

// The whole `raw update` (five tables at once) into a new lake, from the in-process simulator.
void BM_UpdateInProcess(benchmark::State& state) { RunUpdate(state, InProcess()); }
BENCHMARK(BM_UpdateInProcess)
    ->Arg(1)
    ->Arg(7)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1);

// The same over HTTP from `sim serve` on 127.0.0.1 (keep-alive connections, one per table).
void BM_UpdateHttp(benchmark::State& state) {
  sim::ServerOptions options;
  auto server = std::move(sim::Listen(Engine(), options)).value();
  std::thread runner([&] { (void)server->Run(); });
  const std::string url = server->Url();
  RunUpdate(state, [url](const TransportUse&) -> std::unique_ptr<gql::Transport> {
    return std::make_unique<gql::HttpTransport>(url);
  });
  server->Stop();
  runner.join();
}
BENCHMARK(BM_UpdateHttp)
    ->Arg(1)
    ->Arg(7)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1);

// Fetching and converting alone (one table after another on one thread), no lake.
void BM_FetchOnly(benchmark::State& state) {
  const int64_t end = NowMs(), from = end - state.range(0) * kDayMs;
  int64_t records = 0;
  for (auto _ : state) {
    gql::Client client(std::make_unique<sim::InProcessTransport>(Engine()));
    ContractMap contracts = std::move(FetchContracts(client)).value();
    for (const TableDef& t : RawTables()) {
      Pager pager(*FindFetchSpec(t.name), contracts, from, end);
      while (!pager.done()) {
        auto page = pager.Next(client);
        if (!page.ok()) {
          state.SkipWithError(page.status().message().c_str());
          return;
        }
        records += static_cast<int64_t>(page->rows.size());
      }
    }
  }
  state.counters["records/s"] =
      benchmark::Counter(static_cast<double>(records), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_FetchOnly)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

// One day of predictions and payouts, fetched once, in pages of 1000.
struct Pages {
  const TableDef* table;
  std::vector<std::vector<Row>> pages;
  int64_t rows = 0;
};
const std::vector<Pages>& SampleRows() {
  static const std::vector<Pages> sample = [] {
    std::vector<Pages> out;
    gql::Client client(std::make_unique<sim::InProcessTransport>(Engine()));
    ContractMap contracts = std::move(FetchContracts(client)).value();
    for (const char* name : {"pdr_predictions", "pdr_payouts"}) {
      Pages p{FindTable(name), {}, 0};
      Pager pager(*FindFetchSpec(name), contracts, NowMs() - kDayMs, NowMs());
      while (!pager.done()) {
        Page page = std::move(pager.Next(client)).value();
        p.rows += static_cast<int64_t>(page.rows.size());
        if (!page.rows.empty()) p.pages.push_back(std::move(page.rows));
      }
      out.push_back(std::move(p));
    }
    return out;
  }();
  return sample;
}

// The insert path as `raw update` takes it: Appender into the staging table, then one INSERT of the
// IDs not stored (an anti-join in the staged slot range), a transaction per page. Arg 0: new rows
// (the normal case); arg 1: every row offered a second time (all of them stored already).
void BM_StorePath(benchmark::State& state) {
  const auto& sample = SampleRows();
  int64_t rows = 0;
  std::unique_ptr<TempLake> lake;
  for (auto _ : state) {
    state.PauseTiming();
    lake.reset();
    lake = std::make_unique<TempLake>();
    duck::Connection& conn = lake->lake().conn();
    Stager stager = std::move(Stager::Create(conn)).value();
    for (int pass = 0; pass <= state.range(0); ++pass) {
      const bool timed = pass == state.range(0);  // arg 1: the first pass only fills the table
      if (timed) state.ResumeTiming();
      for (const Pages& p : sample) {
        for (const auto& page : p.pages) {
          auto tx = std::move(duck::Transaction::Begin(conn)).value();
          auto counts = stager.Store(*p.table, page);
          if (!counts.ok() || !tx.Commit().ok()) {
            state.SkipWithError("store failed");
            return;
          }
          if (timed) rows += static_cast<int64_t>(page.size());
        }
      }
    }
  }
  lake.reset();
  state.counters["rows/s"] =
      benchmark::Counter(static_cast<double>(rows), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_StorePath)
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(3);

// DuckDB's own appender speed for the same rows into copies of the tables, with the same
// transaction per page (no staging, no check for stored IDs).
void BM_PlainAppender(benchmark::State& state) {
  const auto& sample = SampleRows();
  int64_t rows = 0;
  std::unique_ptr<TempLake> lake;
  for (auto _ : state) {
    state.PauseTiming();
    lake.reset();
    lake = std::make_unique<TempLake>();
    duck::Connection& conn = lake->lake().conn();
    for (const Pages& p : sample) {
      (void)conn.Execute("CREATE TABLE plain_" + std::string(p.table->name) + " AS SELECT * FROM " +
                             std::string(p.table->name) + " LIMIT 0",
                         "bench");
    }
    state.ResumeTiming();
    for (const Pages& p : sample) {
      for (const auto& page : p.pages) {
        auto tx = std::move(duck::Transaction::Begin(conn)).value();
        auto app = std::move(conn.MakeAppender("plain_" + std::string(p.table->name))).value();
        for (const Row& row : page) (void)AppendRow(app, row);
        if (!app.Close().ok() || !tx.Commit().ok()) {
          state.SkipWithError("append failed");
          return;
        }
        rows += static_cast<int64_t>(page.size());
      }
    }
  }
  lake.reset();
  state.counters["rows/s"] =
      benchmark::Counter(static_cast<double>(rows), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_PlainAppender)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

}  // namespace
}  // namespace predlake::raw

BENCHMARK_MAIN();
