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
#include <utility>
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

// The bare build of all five built tables from raw over [{S}, {F}) (ms): one CREATE TABLE AS each,
// in the ETL's order (slots, predictions from them, predictoor groups from those, feed groups
// from both, sales days), each ordered like the ETL's table, with candles (lake_ss.ohlcv on). It
// is the least SQL that gives the ETL's tables on the synthetic lake (every contract in
// pdr_contracts, no re-submission), which bench/scale_lake.cpp checks (kBuiltBaselineTables).
constexpr const char* kBuiltBaselineSql = R"sql(
CREATE OR REPLACE TABLE bench_slots AS
WITH agg AS (
  SELECT coalesce(contract, split_part(ID, '-', 1)) AS contract, slot, count(*) AS n_predictions,
         sum(stake) AS predicted_stake, min(timestamp) AS timestamp, max(timestamp) AS last_ts,
         arg_min({'pair': pair, 'timeframe': timeframe, 'source': source},
                 {'ts': timestamp, 'id': ID}) AS first
  FROM pdr_predictions WHERE timestamp >= {S} AND timestamp < {F}
  GROUP BY ALL
),
tv AS (
  SELECT split_part(ID, '-', 1) || '-' || slot AS slot_id,
         arg_min({'truevalue': truevalue, 'revenue': revenue, 'up': roundSumStakesUp,
                  'total': roundSumStakes, 'ts': timestamp}, {'ts': timestamp, 'id': ID}) AS t
  FROM pdr_truevals WHERE timestamp >= {S} AND timestamp < {F}
  GROUP BY ALL
),
s AS (
  SELECT a.contract || '-' || a.slot AS ID, a.contract, a.slot, a.first.pair AS pair,
         a.first.timeframe AS timeframe, a.first.source AS source, c.seconds_per_epoch,
         c.trueval_submit_timeout,
         (a.slot + c.seconds_per_epoch + c.trueval_submit_timeout) * 1000 AS deadline_timestamp,
         a.n_predictions, a.predicted_stake, tv.t.truevalue AS truevalue, tv.t.revenue AS revenue,
         tv.t.up AS roundSumStakesUp, tv.t.total AS roundSumStakes, tv.t.ts AS trueval_timestamp,
         a.timestamp, a.last_ts, i.close AS exchange_init_close, e.close AS exchange_end_close
  FROM agg AS a
  JOIN pdr_contracts AS c ON c.ID = a.contract
  LEFT JOIN tv ON tv.slot_id = a.contract || '-' || a.slot
  LEFT JOIN pdr_ohlcv AS i
    ON a.slot * 1000 < {F} AND i.exchange = a.first.source AND i.pair = a.first.pair
   AND i.timeframe = a.first.timeframe AND i.timestamp = (a.slot - 2 * c.seconds_per_epoch) * 1000
  LEFT JOIN pdr_ohlcv AS e
    ON a.slot * 1000 < {F} AND e.exchange = a.first.source AND e.pair = a.first.pair
   AND e.timeframe = a.first.timeframe AND e.timestamp = (a.slot - c.seconds_per_epoch) * 1000
),
st AS (
  SELECT * EXCLUDE (exchange_init_close, exchange_end_close),
         CASE WHEN trueval_timestamp IS NOT NULL THEN 'paying'
              WHEN deadline_timestamp < {F} THEN 'canceled' ELSE 'pending' END AS status,
         CASE WHEN trueval_timestamp IS NOT NULL THEN trueval_timestamp
              WHEN deadline_timestamp < {F} THEN deadline_timestamp END AS status_timestamp,
         CASE WHEN exchange_end_close IS NOT NULL THEN exchange_init_close END
           AS exchange_init_close,
         CASE WHEN exchange_init_close IS NOT NULL THEN exchange_end_close END
           AS exchange_end_close
  FROM s
),
mv AS (
  SELECT *, CASE WHEN exchange_end_close > exchange_init_close THEN 'up'
                 WHEN exchange_end_close < exchange_init_close THEN 'down'
                 WHEN exchange_end_close = exchange_init_close THEN 'flat' END AS exchange_move
  FROM st
)
SELECT ID, contract, slot, pair, timeframe, source, seconds_per_epoch, trueval_submit_timeout,
       deadline_timestamp, n_predictions, predicted_stake, truevalue, revenue, roundSumStakesUp,
       roundSumStakes, trueval_timestamp, status, status_timestamp, timestamp,
       greatest(last_ts, status_timestamp,
                CASE WHEN exchange_move IS NOT NULL THEN slot * 1000 END) AS last_event_timestamp,
       exchange_init_close, exchange_end_close, exchange_move,
       CASE WHEN truevalue IS NULL OR exchange_move IS NULL THEN NULL
            WHEN exchange_move = 'flat' THEN false
            ELSE truevalue = (exchange_move = 'up') END AS trueval_agrees
FROM mv
ORDER BY timestamp, ID;

CREATE OR REPLACE TABLE bench_predictions AS
SELECT p.ID, s.ID AS slot_id, s.contract, p.slot, p.user, p.pair, p.timeframe, p.source,
       y.predvalue, s.truevalue, coalesce(p.stake, y.stake) AS stake, s.revenue, y.payout,
       p.timestamp, greatest(p.timestamp, s.status_timestamp, y.timestamp) AS last_event_timestamp,
       s.status
FROM pdr_predictions AS p
JOIN bench_slots AS s ON s.ID = coalesce(p.contract, split_part(p.ID, '-', 1)) || '-' || p.slot
LEFT JOIN pdr_payouts AS y ON y.ID = p.ID AND y.timestamp >= {S} AND y.timestamp < {F}
WHERE p.timestamp >= {S} AND p.timestamp < {F}
ORDER BY p.timestamp, p.ID;

CREATE OR REPLACE TABLE bench_predictoor AS
WITH f AS (
  SELECT *,
         status = 'paying' AND predvalue IS NOT NULL AND truevalue IS NOT NULL AS is_resolved,
         status = 'paying' AND predvalue IS NULL AS is_unrevealed,
         status = 'canceled' AND payout IS NULL AS is_refund_pending
  FROM bench_predictions
),
g AS (
  SELECT DATE '1970-01-01' + CAST(slot // 86400 AS INTEGER) AS day, user, contract,
         min(pair) AS pair, min(timeframe) AS timeframe, min(source) AS source,
         count(*) AS predictions,
         count(*) FILTER (WHERE status = 'pending') AS pending,
         count(*) FILTER (WHERE status = 'canceled') AS canceled,
         count(*) FILTER (WHERE is_unrevealed) AS unrevealed,
         count(*) FILTER (WHERE is_resolved) AS resolved,
         count(*) FILTER (WHERE is_resolved AND predvalue = truevalue) AS correct,
         sum(stake) AS stake, sum(payout) AS payout,
         sum(payout - stake) FILTER (WHERE is_resolved) AS profit,
         sum(revenue) FILTER (WHERE status = 'paying') AS revenue,
         count(stake) AS stake_known, count(payout) AS payout_known,
         count(payout - stake) FILTER (WHERE is_resolved) AS profit_known,
         count(revenue) FILTER (WHERE status = 'paying') AS revenue_known,
         coalesce(sum(payout) FILTER (WHERE status = 'paying'), 0) AS settled_payout,
         coalesce(sum(payout) FILTER (WHERE status = 'canceled'), 0) AS refund_claimed,
         count(*) FILTER (WHERE status = 'paying' AND stake IS NULL) AS settled_stake_unknown,
         count(*) FILTER (WHERE is_resolved AND stake IS NULL) AS resolved_stake_unknown,
         count(*) FILTER (WHERE is_unrevealed AND stake IS NULL) AS unrevealed_stake_unknown,
         count(*) FILTER (WHERE is_refund_pending AND stake IS NULL) AS refund_pending_unknown,
         coalesce(sum(stake) FILTER (WHERE status = 'paying'), 0) AS settled_stake_known_sum,
         coalesce(sum(stake) FILTER (WHERE is_resolved), 0) AS resolved_stake_known_sum,
         coalesce(sum(stake) FILTER (WHERE is_unrevealed), 0) AS unrevealed_stake_known_sum,
         coalesce(sum(stake) FILTER (WHERE is_refund_pending), 0) AS refund_pending_known_sum
  FROM f
  GROUP BY ALL
)
SELECT day, user, contract, pair, timeframe, source, predictions, pending, canceled, unrevealed,
       resolved, correct, CASE WHEN resolved > 0 THEN correct::DOUBLE / resolved END AS accuracy,
       stake, payout, profit, revenue, stake_known, payout_known, profit_known, revenue_known,
       CASE WHEN settled_stake_unknown = 0 THEN settled_stake_known_sum END AS settled_stake,
       settled_payout,
       CASE WHEN settled_stake_unknown = 0 THEN settled_payout - settled_stake_known_sum END
         AS cash_pnl,
       CASE WHEN resolved_stake_unknown = 0 THEN resolved_stake_known_sum END AS resolved_stake,
       CASE WHEN unrevealed_stake_unknown = 0 THEN unrevealed_stake_known_sum END
         AS unrevealed_stake,
       CASE WHEN refund_pending_unknown = 0 THEN refund_pending_known_sum END AS refund_pending,
       refund_claimed, settled_stake_unknown, resolved_stake_unknown, unrevealed_stake_unknown,
       refund_pending_unknown, settled_stake_known_sum, resolved_stake_known_sum,
       unrevealed_stake_known_sum, refund_pending_known_sum
FROM g
ORDER BY day, contract, user;

CREATE OR REPLACE TABLE bench_feed AS
WITH p AS (
  SELECT day, contract, min(pair) AS pair, min(timeframe) AS timeframe, min(source) AS source,
         count(*) AS predictoors, sum(predictions) AS predictions, sum(pending) AS pending,
         sum(canceled) AS canceled, sum(unrevealed) AS unrevealed, sum(resolved) AS resolved,
         sum(correct) AS correct, sum(stake) AS stake, sum(payout) AS payout,
         sum(profit) AS profit,
         CASE WHEN bool_and(settled_stake IS NOT NULL) THEN sum(settled_stake) END AS settled_stake,
         sum(settled_payout) AS settled_payout,
         CASE WHEN bool_and(resolved_stake IS NOT NULL) THEN sum(resolved_stake) END
           AS resolved_stake,
         CASE WHEN bool_and(unrevealed_stake IS NOT NULL) THEN sum(unrevealed_stake) END
           AS unrevealed_stake,
         CASE WHEN bool_and(refund_pending IS NOT NULL) THEN sum(refund_pending) END
           AS refund_pending,
         sum(refund_claimed) AS refund_claimed
  FROM bench_predictoor
  GROUP BY day, contract
),
s AS (
  SELECT DATE '1970-01-01' + CAST(slot // 86400 AS INTEGER) AS day, contract, count(*) AS slots,
         count(*) FILTER (WHERE status = 'canceled') AS slots_canceled,
         sum(revenue) FILTER (WHERE status = 'paying') AS revenue,
         count(*) FILTER (WHERE c) AS consensus_slots,
         count(*) FILTER (WHERE trueval_agrees = false) AS trueval_disagreements,
         count(*) FILTER (WHERE c AND CASE WHEN truevalue
                                           THEN roundSumStakesUp > roundSumStakes - roundSumStakesUp
                                           ELSE roundSumStakesUp < roundSumStakes - roundSumStakesUp
                                      END) AS consensus_correct_slots,
         coalesce(sum(roundSumStakes) FILTER (WHERE c), 0) AS consensus_stake,
         coalesce(sum(CASE WHEN truevalue THEN roundSumStakesUp
                           ELSE roundSumStakes - roundSumStakesUp END) FILTER (WHERE c), 0)
           AS consensus_correct_stake
  FROM (SELECT *, coalesce(status = 'paying' AND truevalue IS NOT NULL AND roundSumStakes > 0
                           AND roundSumStakesUp IS NOT NULL, false) AS c
        FROM bench_slots)
  GROUP BY ALL
)
SELECT day, contract, p.pair, p.timeframe, p.source, coalesce(s.slots, 0) AS slots,
       coalesce(s.slots_canceled, 0) AS slots_canceled, coalesce(p.predictoors, 0) AS predictoors,
       coalesce(p.predictions, 0) AS predictions, coalesce(p.pending, 0) AS pending,
       coalesce(p.canceled, 0) AS canceled, coalesce(p.unrevealed, 0) AS unrevealed,
       coalesce(p.resolved, 0) AS resolved, coalesce(p.correct, 0) AS correct,
       CASE WHEN p.resolved > 0 THEN p.correct::DOUBLE / p.resolved END AS accuracy,
       p.stake, p.payout, p.profit, s.revenue,
       CASE WHEN p.predictoors IS NULL THEN 0 ELSE p.settled_stake END AS settled_stake,
       coalesce(p.settled_payout, 0) AS settled_payout,
       CASE WHEN p.predictoors IS NULL THEN 0 ELSE p.settled_payout - p.settled_stake END
         AS cash_pnl,
       CASE WHEN p.predictoors IS NULL THEN 0 ELSE p.resolved_stake END AS resolved_stake,
       CASE WHEN p.predictoors IS NULL THEN 0 ELSE p.unrevealed_stake END AS unrevealed_stake,
       CASE WHEN p.predictoors IS NULL THEN 0 ELSE p.refund_pending END AS refund_pending,
       coalesce(p.refund_claimed, 0) AS refund_claimed,
       coalesce(s.consensus_slots, 0) AS consensus_slots,
       coalesce(s.consensus_correct_slots, 0) AS consensus_correct_slots,
       coalesce(s.consensus_stake, 0) AS consensus_stake,
       coalesce(s.consensus_correct_stake, 0) AS consensus_correct_stake,
       coalesce(s.trueval_disagreements, 0) AS trueval_disagreements
FROM p FULL JOIN s USING (day, contract)
ORDER BY day, contract;

CREATE OR REPLACE TABLE bench_sales AS
SELECT DATE '1970-01-01' + CAST(timestamp // 86400000 AS INTEGER) AS day,
       split_part(ID, '-', 1) AS contract, min(pair) AS pair, min(timeframe) AS timeframe,
       min(source) AS source, count(*) AS subscriptions, count(DISTINCT user) AS buyers,
       sum(last_price_value) AS sales
FROM pdr_subscriptions WHERE timestamp >= {S} AND timestamp < {F}
GROUP BY ALL
ORDER BY day, contract;
)sql";

// Each table of kBuiltBaselineSql and the built table it must equal (run_id aside).
inline constexpr std::pair<const char*, const char*> kBuiltBaselineTables[] = {
    {"bench_slots", "bronze_pdr_slots"},           {"bench_predictions", "bronze_pdr_predictions"},
    {"bench_predictoor", "gold_predictoor_daily"}, {"bench_feed", "gold_feed_daily"},
    {"bench_sales", "gold_feed_sales_daily"},
};

}  // namespace predlake::bench
