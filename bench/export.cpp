// module: predlake_jobs
// Parquet snapshots (docs/export.md, "Performance"). For each lake size it builds the synthetic
// network of bench/etl_incremental.cpp (N predictions), runs the ETL up to one hour before the end
// and exports (a full snapshot), then adds the last hour, runs the ETL over it and times, in the
// same process:
//   incremental  `export` after that one-hour update (changed days rewritten, the rest linked);
//   full         `export --full` of the same lake;
//   bare_copy    DuckDB's own COPY (FORMAT parquet, COMPRESSION zstd) of the same tables, one file
//                each, no partitioning, no manifest, no fsync;
//   bare_partitioned  the same COPY with the export's PARTITION_BY day (what DuckDB's partitioned
//                write costs by itself, without signatures, manifest, links or fsyncs).
// Sizes: PREDLAKE_BENCH_SIZES (comma separated, default 1000000); repetitions PREDLAKE_BENCH_REPS
// (default 3; the best is reported). The lake lives under PREDLAKE_BENCH_DIR (default the system
// temp folder) and is removed at the end unless PREDLAKE_BENCH_KEEP is set; PREDLAKE_BENCH_REUSE
// then times that kept lake again (its last hour dropped and re-published before each repetition)
// instead of generating and publishing a new one. PREDLAKE_BENCH_INCREMENTAL_ONLY times only the
// incremental export (no full export, no bare COPYs). Prints one table.
#include "export/export.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "etl/etl.hpp"
#include "export/snapshot.hpp"
#include "lake/lake.hpp"
#include "synthetic_world.hpp"

namespace predlake::bench {
namespace {

namespace fs = std::filesystem;

exports::ExportReport RunExport(lake::Lake& lake, bool full) {
  exports::ExportOptions options;
  options.full = full;
  options.grace_ms = 0;  // keep only the newest snapshots on disk
  lake::Run run = Begin(lake, "export");
  auto report = exports::Export(lake, run, options);
  Check(report.status(), full ? "full export" : "incremental export");
  return std::move(report).value();
}

// Waits for the background removal of the superseded snapshot and sets its wall and CPU seconds.
void TimeRemovals(double& wall_s, double& cpu_s) {
  const auto start = std::chrono::steady_clock::now();
  const double cpu = CpuSeconds();
  exports::WaitForRemovals();
  wall_s = Seconds(start);
  cpu_s = CpuSeconds() - cpu;
}

struct Row {
  int64_t size = 0;
  int64_t rows = 0;
  double incremental = 1e9, full = 1e9, bare_copy = 1e9, bare_part = 1e9;  // wall seconds, best
  double incremental_cpu = 1e9, full_cpu = 1e9, bare_copy_cpu = 1e9, bare_part_cpu = 1e9;  // CPU
  // The removal of the superseded snapshot, which the export leaves to a background thread
  // after its run is committed (exports::WaitForRemovals): wall and CPU seconds, after the
  // incremental and after the full export.
  double inc_removal = 0, inc_removal_cpu = 0, full_removal = 0, full_removal_cpu = 0;
  int64_t days_written = 0, days_linked = 0;
  exports::ExportReport inc_report, full_report;  // the phases of the best repetition's exports
  std::string load;                               // 1-minute load averages during the timings
};

Row Measure(int64_t size, int reps) {
  Row row;
  row.size = size;
  const char* base = std::getenv("PREDLAKE_BENCH_DIR");
  const std::string dir = (fs::path(base ? base : fs::temp_directory_path().string()) /
                           ("predlake_bench_export_" + std::to_string(size)))
                              .string();
  const bool reuse = std::getenv("PREDLAKE_BENCH_REUSE") != nullptr &&
                     fs::exists(fs::path(dir) / "exports" / "current");
  if (!reuse) fs::remove_all(dir);
  const int64_t hours = std::max<int64_t>(3, static_cast<int64_t>(size / kPredictionsPerHour));
  const int64_t end_ms = kT0 + hours * kHourMs;
  const int64_t cut_ms = end_ms - kHourMs;
  lake::OpenOptions open;
  open.mode = lake::Mode::kWrite;
  open.command = "bench";
  const char* threads = std::getenv("PREDLAKE_BENCH_THREADS");
  open.threads = threads ? std::atoi(threads) : 2;
  auto opened = lake::Lake::Open(dir, open);
  Check(opened.status(), "open lake");
  std::unique_ptr<lake::Lake> lake = std::move(opened).value();
  auto& conn = lake->conn();
  etl::UpdateOptions etl_options;
  etl_options.st_ms = kT0;
  if (!reuse) {
    std::fprintf(stderr, "[%lld] generating %lld hours...\n", static_cast<long long>(size),
                 static_cast<long long>(hours));
    Check(conn.Execute(
              Fill(kGenerate, {{"T0", kT0 / 1000}, {"END", end_ms / 1000}, {"CLAIM", 6 * kHourMs}}),
              "generate"),
          "generate");
    Check(conn.Execute(Fill(kLoad, {{"FROM", 0}, {"TO", cut_ms}}), "load"), "load");
    for (std::string_view t : lake::kRawTables) {
      Check(lake->SetWatermark(t, {kT0, cut_ms}, 0), "wm");
    }
    std::fprintf(stderr, "[%lld] first etl update...\n", static_cast<long long>(size));
    {
      lake::Run run = Begin(*lake, "etl update");
      Check(etl::Update(*lake, run, etl_options).status(), "first etl update");
    }
    Check(conn.Execute("CHECKPOINT", "checkpoint"), "checkpoint");
    std::fprintf(stderr, "[%lld] first export...\n", static_cast<long long>(size));
    RunExport(*lake, true);
  }

  for (int rep = 0; rep < reps; ++rep) {
    // The last hour arrives and is published (rolled back between repetitions, and first of all
    // on a reused lake, which holds it already), then exported.
    std::fprintf(stderr, "[%lld] repetition %d...\n", static_cast<long long>(size), rep + 1);
    if (rep > 0 || reuse) {
      lake::Run run = Begin(*lake, "raw drop");
      Check(etl::RawDrop(*lake, run, cut_ms, {}).status(), "raw drop");
      RunExport(*lake, false);  // back to the state before the hour
    }
    Check(conn.Execute(Fill(kLoad, {{"FROM", cut_ms}, {"TO", end_ms}}), "load"), "load hour");
    for (std::string_view t : lake::kRawTables)
      Check(lake->SetWatermark(t, {kT0, end_ms}, 0), "wm");
    {
      lake::Run run = Begin(*lake, "etl update");
      Check(etl::Update(*lake, run, etl_options).status(), "etl update");
    }
    // The update's write-ahead log folded into the database file now, so that the export's own
    // commit (its ledger row) does not pay for the update's checkpoint.
    Check(conn.Execute("CHECKPOINT", "checkpoint"), "checkpoint");
    row.load += (row.load.empty() ? "" : ", ") + LoadAverage();
    auto start = std::chrono::steady_clock::now();
    double cpu = CpuSeconds();
    exports::ExportReport inc = RunExport(*lake, false);
    row.incremental_cpu = std::min(row.incremental_cpu, CpuSeconds() - cpu);
    const double inc_s = Seconds(start);
    if (inc_s < row.incremental) {
      row.inc_report = inc;
      TimeRemovals(row.inc_removal, row.inc_removal_cpu);
    }
    exports::WaitForRemovals();
    row.incremental = std::min(row.incremental, inc_s);
    row.days_written = inc.days_written;
    row.days_linked = inc.days_linked;
    row.rows = inc.rows_written + inc.rows_linked;

    if (std::getenv("PREDLAKE_BENCH_INCREMENTAL_ONLY") != nullptr) continue;
    start = std::chrono::steady_clock::now();
    cpu = CpuSeconds();
    exports::ExportReport full = RunExport(*lake, true);
    row.full_cpu = std::min(row.full_cpu, CpuSeconds() - cpu);
    const double full_s = Seconds(start);
    if (full_s < row.full) {
      row.full_report = full;
      TimeRemovals(row.full_removal, row.full_removal_cpu);
    }
    exports::WaitForRemovals();
    row.full = std::min(row.full, full_s);

    const fs::path bare = fs::path(dir) / "bare_copy";
    fs::remove_all(bare);
    fs::create_directories(bare);
    start = std::chrono::steady_clock::now();
    cpu = CpuSeconds();
    for (const exports::ExportTable& t : exports::DataTables()) {
      Check(conn.Execute("COPY " + std::string(t.name) + " TO '" +
                             (bare / (std::string(t.name) + ".parquet")).string() +
                             "' (FORMAT parquet, COMPRESSION zstd)",
                         "bare copy"),
            "bare copy");
    }
    row.bare_copy = std::min(row.bare_copy, Seconds(start));
    row.bare_copy_cpu = std::min(row.bare_copy_cpu, CpuSeconds() - cpu);

    fs::remove_all(bare);
    fs::create_directories(bare);
    start = std::chrono::steady_clock::now();
    cpu = CpuSeconds();
    for (const exports::ExportTable& t : exports::DataTables()) {
      const std::string name(t.name);
      const fs::path to = bare / name;
      if (t.partitioning == exports::Partitioning::kNone) {
        fs::create_directories(to);
        Check(conn.Execute("COPY " + name + " TO '" + (to / "part.parquet").string() +
                               "' (FORMAT parquet, COMPRESSION zstd)",
                           "bare partitioned copy"),
              "bare partitioned copy");
        continue;
      }
      const bool own_day = t.partitioning == exports::Partitioning::kByDayColumn;
      const std::string select =
          own_day ? "SELECT * FROM " + name
                  : "SELECT *, " + exports::DayExpression(t.partitioning) + " AS day FROM " + name;
      Check(conn.Execute("COPY (" + select + ") TO '" + to.string() +
                             "' (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (day), "
                             "WRITE_PARTITION_COLUMNS " +
                             (own_day ? "true" : "false") + ")",
                         "bare partitioned copy"),
            "bare partitioned copy");
    }
    row.bare_part = std::min(row.bare_part, Seconds(start));
    row.bare_part_cpu = std::min(row.bare_part_cpu, CpuSeconds() - cpu);
    row.load += ", " + LoadAverage();
  }
  lake.reset();
  if (!std::getenv("PREDLAKE_BENCH_KEEP")) fs::remove_all(dir);
  return row;
}

}  // namespace
}  // namespace predlake::bench

int main() {
  using namespace predlake::bench;
  const std::vector<int64_t> sizes = SizesFromEnv(1'000'000);
  const int reps = RepsFromEnv(3);
  std::vector<Row> rows;
  for (int64_t size : sizes) rows.push_back(Measure(size, reps));
  if (std::getenv("PREDLAKE_BENCH_INCREMENTAL_ONLY") != nullptr) {
    // Only the incremental export was timed: its table, phases and growth.
    std::printf(
        "| predictions | rows exported | incremental (days written / linked) | wall | CPU |\n"
        "|---|---|---|---|---|\n");
    for (const Row& r : rows) {
      const predlake::exports::ExportReport& e = r.inc_report;
      std::printf("| %lld | %lld | %lld / %lld | %.2f s | %.2f s |\n",
                  static_cast<long long>(r.size), static_cast<long long>(r.rows),
                  static_cast<long long>(r.days_written), static_cast<long long>(r.days_linked),
                  r.incremental, r.incremental_cpu);
      std::printf(
          "  phases wall / CPU: changed days %.2f / %.2f s, writes %.2f / %.2f s, fsyncs "
          "%.2f / %.2f s, links %.2f / %.2f s, removals %.2f / %.2f s (then in the background "
          "%.2f / %.2f s); %lld tables derived, %lld fell back; load %s\n",
          e.signature_s, e.signature_cpu_s, e.write_s, e.write_cpu_s, e.sync_s, e.sync_cpu_s,
          e.link_s, e.link_cpu_s, e.clean_s, e.clean_cpu_s, r.inc_removal, r.inc_removal_cpu,
          static_cast<long long>(e.tables_derived), static_cast<long long>(e.signature_fallbacks),
          r.load.c_str());
    }
    if (rows.size() > 1) {
      std::printf("incremental growth: %.2fx wall, %.2fx CPU\n",
                  rows.back().incremental / rows.front().incremental,
                  rows.back().incremental_cpu / rows.front().incremental_cpu);
    }
    return 0;
  }
  std::printf(
      "| predictions | rows exported | incremental (days written / linked) | full | bare COPY "
      "| bare partitioned COPY | full / bare | full / bare partitioned |\n"
      "|---|---|---|---|---|---|---|---|\n");
  for (const Row& r : rows) {
    std::printf(
        "| %lld | %lld | %.2f s (%lld / %lld) | %.2f s | %.2f s | %.2f s | %.2fx | %.2fx |\n",
        static_cast<long long>(r.size), static_cast<long long>(r.rows), r.incremental,
        static_cast<long long>(r.days_written), static_cast<long long>(r.days_linked), r.full,
        r.bare_copy, r.bare_part, r.full / r.bare_copy, r.full / r.bare_part);
  }
  std::printf(
      "\nCPU seconds (this process, every thread):\n\n| predictions | incremental | full | bare "
      "COPY | bare partitioned COPY | full / bare | full / bare partitioned |\n"
      "|---|---|---|---|---|---|---|\n");
  for (const Row& r : rows) {
    std::printf("| %lld | %.2f s | %.2f s | %.2f s | %.2f s | %.2fx | %.2fx |\n",
                static_cast<long long>(r.size), r.incremental_cpu, r.full_cpu, r.bare_copy_cpu,
                r.bare_part_cpu, r.full_cpu / r.bare_copy_cpu, r.full_cpu / r.bare_part_cpu);
  }
  std::printf(
      "\nPhases, wall / CPU seconds (rest: manifest, schemas, ledger commit, moves):\n\n| "
      "predictions | export | changed days / signatures | writes | fsyncs | links | removals | "
      "rest |\n|---|---|---|---|---|---|---|---|\n");
  for (const Row& r : rows) {
    for (const auto* rep : {&r.inc_report, &r.full_report}) {
      const bool inc = rep == &r.inc_report;
      const double total = inc ? r.incremental : r.full;
      const double total_cpu = inc ? r.incremental_cpu : r.full_cpu;
      const double rest =
          total - rep->signature_s - rep->write_s - rep->sync_s - rep->link_s - rep->clean_s;
      const double rest_cpu = total_cpu - rep->signature_cpu_s - rep->write_cpu_s -
                              rep->sync_cpu_s - rep->link_cpu_s - rep->clean_cpu_s;
      std::printf(
          "| %lld | %s | %.2f / %.2f s | %.2f / %.2f s | %.2f / %.2f s | %.2f / %.2f s | %.2f / "
          "%.2f s | %.2f / %.2f s |\n",
          static_cast<long long>(r.size), inc ? "incremental" : "full", rep->signature_s,
          rep->signature_cpu_s, rep->write_s, rep->write_cpu_s, rep->sync_s, rep->sync_cpu_s,
          rep->link_s, rep->link_cpu_s, rep->clean_s, rep->clean_cpu_s, rest, rest_cpu);
    }
    std::printf(
        "| %lld | (incremental: %lld tables derived, %lld fell back; superseded snapshot removed "
        "in the background after the incremental export %.2f / %.2f s, after the full %.2f / "
        "%.2f s) |\n",
        static_cast<long long>(r.size), static_cast<long long>(r.inc_report.tables_derived),
        static_cast<long long>(r.inc_report.signature_fallbacks), r.inc_removal, r.inc_removal_cpu,
        r.full_removal, r.full_removal_cpu);
  }
  for (const Row& r : rows) {
    std::printf(
        "\nload average (1 min) at %lld predictions, before and after each repetition: %s\n",
        static_cast<long long>(r.size), r.load.c_str());
  }
  if (rows.size() > 1) {
    std::printf(
        "\nincremental growth from the smallest to the largest lake: %.2fx wall, %.2fx CPU\n",
        rows.back().incremental / rows.front().incremental,
        rows.back().incremental_cpu / rows.front().incremental_cpu);
  }
  return 0;
}
