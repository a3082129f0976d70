// What every benchmark program under bench/ needs: fail-fast checks, wall and CPU clocks, the load
// average printed with results, the sizes and repetitions asked for, a ledger run for the jobs they
// time, and the single-query baseline that the ETL's cost is compared with.
#pragma once

#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "common/status.hpp"
#include "lake/lake.hpp"

namespace predlake::bench {

// Exits 1 with "<program>: <what>: <message>" when `st` failed: a benchmark has nothing to report
// then.
inline void Check(const Status& st, const char* what) {
  if (!st.ok()) {
    std::fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, what, st.message().c_str());
    std::exit(1);
  }
}

// Wall seconds since `start`.
inline double Seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// CPU seconds of this process so far, every thread (user + system): on a machine shared with other
// work the wall times follow the load, the CPU times what the work costs.
inline double CpuSeconds() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// The 1-minute load average (Linux; empty elsewhere), printed with the results.
inline std::string LoadAverage() {
  std::FILE* f = std::fopen("/proc/loadavg", "r");
  if (f == nullptr) return "";
  char buf[64] = {};
  const bool ok = std::fgets(buf, sizeof buf, f) != nullptr;
  std::fclose(f);
  if (!ok) return "";
  std::string text(buf);
  return text.substr(0, text.find(' '));
}

// The lake sizes (predictions) in PREDLAKE_BENCH_SIZES, comma-separated; `fallback` without it.
inline std::vector<int64_t> SizesFromEnv(int64_t fallback) {
  std::vector<int64_t> sizes;
  const char* env = std::getenv("PREDLAKE_BENCH_SIZES");
  if (env == nullptr || *env == '\0') return {fallback};
  std::stringstream ss(env);
  for (std::string item; std::getline(ss, item, ',');) sizes.push_back(std::stoll(item));
  return sizes;
}

// The repetitions in PREDLAKE_BENCH_REPS (at least 1); `fallback` without it.
inline int RepsFromEnv(int fallback) {
  const char* env = std::getenv("PREDLAKE_BENCH_REPS");
  return env && *env ? std::max(1, std::atoi(env)) : fallback;
}

// A run begun for `command`, for the jobs the benchmarks time (they measure the job, not the
// ledger).
inline lake::Run Begin(lake::Lake& lake, const std::string& command) {
  auto run = lake.BeginRun(command);
  Check(run.status(), "begin run");
  return std::move(run).value();
}

// The baseline: bronze_pdr_predictions from raw in one statement over [{S}, {F}) (ms), as fast as
// we could make it; bench/etl_incremental.cpp checks it equal to the ETL's table.
constexpr const char* kBronzeBaselineSql = R"sql(
CREATE OR REPLACE TABLE bench_bronze AS
WITH tv AS (
  SELECT split_part(ID, '-', 1) || '-' || slot AS slot_id,
         arg_min({'truevalue': truevalue, 'revenue': revenue, 'ts': timestamp},
                 {'ts': timestamp, 'id': ID}) AS t
  FROM pdr_truevals WHERE timestamp >= {S} AND timestamp < {F}
  GROUP BY ALL
)
SELECT p.ID, coalesce(p.contract, split_part(p.ID, '-', 1)) || '-' || p.slot AS slot_id,
       coalesce(p.contract, split_part(p.ID, '-', 1)) AS contract,
       p.slot, p.user, p.pair, p.timeframe, p.source, y.predvalue, tv.t.truevalue,
       coalesce(p.stake, y.stake) AS stake, tv.t.revenue, y.payout, p.timestamp,
       greatest(p.timestamp,
                CASE WHEN tv.t IS NOT NULL THEN tv.t.ts
                     WHEN (p.slot + c.seconds_per_epoch + c.trueval_submit_timeout) * 1000 < {F}
                     THEN (p.slot + c.seconds_per_epoch + c.trueval_submit_timeout) * 1000 END,
                y.timestamp) AS last_event_timestamp,
       CASE WHEN tv.t IS NOT NULL THEN 'paying'
            WHEN (p.slot + c.seconds_per_epoch + c.trueval_submit_timeout) * 1000 < {F}
            THEN 'canceled' ELSE 'pending' END AS status
FROM pdr_predictions p
LEFT JOIN tv ON tv.slot_id = coalesce(p.contract, split_part(p.ID, '-', 1)) || '-' || p.slot
LEFT JOIN pdr_payouts y ON y.ID = p.ID AND y.timestamp >= {S} AND y.timestamp < {F}
LEFT JOIN pdr_contracts c ON c.ID = coalesce(p.contract, split_part(p.ID, '-', 1))
WHERE p.timestamp >= {S} AND p.timestamp < {F}
ORDER BY p.timestamp, p.ID;
)sql";

}  // namespace predlake::bench
