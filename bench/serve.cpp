// module: predlake_serve
// The dashboard's server time (docs/serve.md, "Performance"). For each lake size it builds the
// synthetic network of bench/etl_incremental.cpp (N predictions), runs the ETL over all of it,
// writes a full snapshot, and times serve::Answer (everything a request costs but the socket: the
// snapshot opened in its own in-memory DuckDB, the queries, the rendering) for every page, as HTML,
// for the periods 1w and all. Sizes: PREDLAKE_BENCH_SIZES (comma separated, default 1000000);
// repetitions PREDLAKE_BENCH_REPS (default 3; the best is reported). The lake lives under
// PREDLAKE_BENCH_DIR (default the system temp folder) and is removed at the end unless
// PREDLAKE_BENCH_KEEP is set (PREDLAKE_BENCH_REUSE then times that lake's current snapshot again,
// without opening the lake: the folder may be a link to bench_export's kept lake, or to a folder
// holding only a hard-linked copy of its exports/). Prints one table: per page the best wall
// milliseconds and the best CPU milliseconds of the process (every thread; requests run one at a
// time), which on a shared machine say what the request costs whatever the load.
#include "serve/serve.hpp"

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
#include "etl/etl.hpp"
#include "export/export.hpp"
#include "export/snapshot.hpp"
#include "lake/lake.hpp"
#include "serve/pages.hpp"
#include "synthetic_world.hpp"

namespace predlake::bench {
namespace {

namespace fs = std::filesystem;

struct PageTime {
  std::string page;
  std::string period;
  double ms = 1e12;
  double cpu_ms = 1e12;
  size_t bytes = 0;
};

struct SizeRow {
  int64_t size = 0;
  std::vector<PageTime> pages;
  std::string load;  // 1-minute load average before and after the timings
};

SizeRow Measure(int64_t size, int reps) {
  SizeRow row;
  row.size = size;
  const char* base = std::getenv("PREDLAKE_BENCH_DIR");
  const std::string dir = (fs::path(base ? base : fs::temp_directory_path().string()) /
                           ("predlake_bench_serve_" + std::to_string(size)))
                              .string();
  // PREDLAKE_BENCH_REUSE: time the snapshot a kept lake (PREDLAKE_BENCH_KEEP) already has.
  const bool reuse = std::getenv("PREDLAKE_BENCH_REUSE") != nullptr &&
                     fs::exists(fs::path(dir) / "exports" / "current");
  if (!reuse) fs::remove_all(dir);
  const int64_t hours = std::max<int64_t>(3, static_cast<int64_t>(size / kPredictionsPerHour));
  const int64_t end_ms = kT0 + hours * kHourMs;
  std::string user, contract;
  if (reuse) {
    // From the snapshot, not the lake: the lake may be another benchmark's, still being written
    // (bench_export's kept lake, linked here), while its current snapshot is complete.
    auto current = exports::ReadCurrent(dir);
    Check(current.status(), "read the kept lake's snapshot");
    auto opened = exports::OpenSnapshot(dir, **current, nullptr);
    Check(opened.status(), "open the kept lake's snapshot");
    auto q = (*opened)->conn().Query(
        "SELECT user, contract FROM gold_predictoor_daily ORDER BY predictions DESC LIMIT 1",
        "pick");
    Check(q.status(), "pick");
    auto rows = q->ToText();
    if (!rows.empty()) {
      user = rows[0][0].value_or("");
      contract = rows[0][1].value_or("");
    }
  } else {
    lake::OpenOptions open;
    open.mode = lake::Mode::kWrite;
    open.command = "bench";
    const char* threads = std::getenv("PREDLAKE_BENCH_THREADS");
    open.threads = threads ? std::atoi(threads) : 2;
    auto opened = lake::Lake::Open(dir, open);
    Check(opened.status(), "open lake");
    std::unique_ptr<lake::Lake> lake = std::move(opened).value();
    auto& conn = lake->conn();
    std::fprintf(stderr, "[%lld] generating %lld hours...\n", static_cast<long long>(size),
                 static_cast<long long>(hours));
    Check(conn.Execute(
              Fill(kGenerate, {{"T0", kT0 / 1000}, {"END", end_ms / 1000}, {"CLAIM", 6 * kHourMs}}),
              "generate"),
          "generate");
    Check(conn.Execute(Fill(kLoad, {{"FROM", 0}, {"TO", end_ms}}), "load"), "load");
    for (std::string_view t : lake::kRawTables) {
      Check(lake->SetWatermark(t, {kT0, end_ms}, 0), "wm");
    }
    std::fprintf(stderr, "[%lld] etl...\n", static_cast<long long>(size));
    etl::UpdateOptions etl_options;
    etl_options.st_ms = kT0;
    {
      lake::Run run = Begin(*lake, "etl update");
      Check(etl::Update(*lake, run, etl_options).status(), "etl update");
    }
    Check(conn.Execute("CHECKPOINT", "checkpoint"), "checkpoint");
    std::fprintf(stderr, "[%lld] export...\n", static_cast<long long>(size));
    {
      exports::ExportOptions options;
      options.full = true;
      options.grace_ms = 0;
      lake::Run run = Begin(*lake, "export");
      Check(exports::Export(*lake, run, options).status(), "export");
    }
    auto q = conn.Query(
        "SELECT user, contract FROM gold_predictoor_daily ORDER BY predictions DESC LIMIT 1",
        "pick");
    Check(q.status(), "pick");
    auto rows = q->ToText();
    if (!rows.empty()) {
      user = rows[0][0].value_or("");
      contract = rows[0][1].value_or("");
    }
  }
  serve::ServeOptions options;
  options.lake_dir = dir;
  const std::vector<std::string> pages = {"/",       "/predictoors",      "/predictoor/" + user,
                                          "/feeds",  "/feed/" + contract, "/runs",
                                          "/metrics"};
  row.load = LoadAverage();
  {
    // Once per snapshot: its views and in-memory tables, and /metrics' scan (serve::Warm, what
    // `serve --every` does after each export, before any request asks).
    PageTime cold;
    cold.page = "(open a new snapshot: serve::Warm)";
    cold.period = "-";
    {
      auto start = std::chrono::steady_clock::now();
      const double cpu = 1e3 * CpuSeconds();
      Check(serve::Warm(options), "warm");
      cold.ms = 1e3 * Seconds(start);
      cold.cpu_ms = 1e3 * CpuSeconds() - cpu;
    }
    row.pages.push_back(cold);
    PageTime t;
    t.page = "(open the snapshot: later requests)";
    t.period = "-";
    for (int rep = 0; rep < reps; ++rep) {
      auto start = std::chrono::steady_clock::now();
      const double cpu = 1e3 * CpuSeconds();
      auto view = serve::OpenView(options);
      Check(view.status(), "open view");
      t.ms = std::min(t.ms, 1e3 * Seconds(start));
      t.cpu_ms = std::min(t.cpu_ms, 1e3 * CpuSeconds() - cpu);
    }
    row.pages.push_back(t);
  }
  for (const std::string& page : pages) {
    for (const char* period : {"1w", "all"}) {
      if (page == "/metrics" && std::string(period) == "all") continue;
      PageTime t;
      t.page = page.rfind("/predictoor/", 0) == 0 ? "/predictoor/<address>"
               : page.rfind("/feed/", 0) == 0     ? "/feed/<contract>"
                                                  : page;
      t.period = page == "/metrics" ? "-" : period;
      std::multimap<std::string, std::string> params;
      if (page != "/metrics") params.emplace("period", period);
      for (int rep = 0; rep < reps; ++rep) {
        auto start = std::chrono::steady_clock::now();
        const double cpu = 1e3 * CpuSeconds();
        serve::Response r = serve::Answer(options, page, params);
        const double ms = 1e3 * Seconds(start);
        t.cpu_ms = std::min(t.cpu_ms, 1e3 * CpuSeconds() - cpu);
        if (r.status != 200) {
          std::fprintf(stderr, "bench_serve: %s answered %d: %s\n", page.c_str(), r.status,
                       r.body.substr(0, 300).c_str());
          std::exit(1);
        }
        t.ms = std::min(t.ms, ms);
        t.bytes = r.body.size();
      }
      row.pages.push_back(t);
    }
  }
  row.load += ", " + LoadAverage();
  if (!std::getenv("PREDLAKE_BENCH_KEEP")) fs::remove_all(dir);
  return row;
}

}  // namespace
}  // namespace predlake::bench

int main() {
  using namespace predlake::bench;
  const std::vector<int64_t> sizes = SizesFromEnv(1'000'000);
  const int reps = RepsFromEnv(3);
  std::vector<SizeRow> rows;
  for (int64_t size : sizes) rows.push_back(Measure(size, reps));
  std::printf("| page | period |");
  for (const SizeRow& r : rows) std::printf(" %lld predictions |", static_cast<long long>(r.size));
  if (rows.size() > 1) std::printf(" growth |");
  std::printf("\n|---|---|");
  for (size_t i = 0; i < rows.size() + (rows.size() > 1 ? 1 : 0); ++i) std::printf("---|");
  std::printf("\n");
  for (size_t p = 0; p < rows.front().pages.size(); ++p) {
    const PageTime& first = rows.front().pages[p];
    std::printf("| %s | %s |", first.page.c_str(), first.period.c_str());
    for (const SizeRow& r : rows) {
      std::printf(" %.0f ms (CPU %.0f ms) |", r.pages[p].ms, r.pages[p].cpu_ms);
    }
    if (rows.size() > 1) std::printf(" %.2fx |", rows.back().pages[p].ms / first.ms);
    std::printf("\n");
  }
  for (const SizeRow& r : rows) {
    std::printf("\nload average (1 min) at %lld predictions, before and after the timings: %s\n",
                static_cast<long long>(r.size), r.load.c_str());
  }
  return 0;
}
