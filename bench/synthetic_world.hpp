// The synthetic network of the benchmarks (bench/etl_incremental.cpp, bench/export.cpp): raw events
// generated in DuckDB from range()/generate_series, deterministic (hash-based).
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace predlake::bench {

constexpr int64_t kHourMs = 3'600'000;
constexpr int64_t kT0 = 1'704'067'200'000;  // 2024-01-01T00:00:00Z
constexpr double kPredictionsPerHour = 3'510;

// The synthetic network, as SQL over range()/generate_series, parameterised by {T0} (s), {END}
// (s, exclusive: events from then on are not generated). Deterministic (hash-based).
constexpr const char* kGenerate = R"sql(
CREATE OR REPLACE TABLE bench_feeds AS
SELECT '0x' || lpad(printf('%x', 4096 + i), 40, '0') AS contract,
       ['BTC/USDT', 'ETH/USDT', 'BNB/USDT', 'XRP/USDT', 'ADA/USDT', 'DOGE/USDT', 'SOL/USDT',
        'LTC/USDT', 'TRX/USDT', 'DOT/USDT'][i % 10 + 1] AS pair,
       CASE WHEN i < 10 THEN '5m' ELSE '1h' END AS timeframe,
       CASE WHEN i < 10 THEN 300 ELSE 3600 END AS epoch,
       1800 AS timeout
FROM range(20) t(i);

INSERT INTO pdr_contracts
SELECT contract, pair, timeframe, 'binance', epoch, timeout, 'nft' FROM bench_feeds;

CREATE OR REPLACE TABLE bench_slots AS
SELECT f.contract, f.pair, f.timeframe, f.epoch, f.timeout, s.slot,
       hash(f.contract, s.slot) % 100 = 0 AS canceled,
       hash(f.contract, s.slot, 'tv') % 2 = 0 AS truevalue,
       (s.slot + f.epoch + 3 + hash(f.contract, s.slot, 'tvt') % 37) * 1000 AS tv_ts,
       (s.slot + f.epoch + f.timeout) * 1000 AS cancel_ts
FROM bench_feeds f,
     generate_series(({T0} // f.epoch + 1) * f.epoch, {END} + f.epoch, f.epoch) s(slot);

CREATE OR REPLACE TABLE bench_preds AS
SELECT s.*, u.i AS k,
       '0x' || lpad(printf('%x', 65536 + u.i), 40, '0') AS user,
       (s.slot - s.epoch) * 1000 + hash(s.contract, s.slot, u.i) % (s.epoch * 1000) AS ts,
       ((1 + hash(s.contract, s.slot, u.i, 's') % 100000) / 100)::DECIMAL(38, 18) AS stake,
       hash(s.contract, s.slot, u.i, 'v') % 2 = 0 AS predvalue,
       hash(s.contract, s.slot, u.i, 'c') % 100 AS claim
FROM bench_slots s, range(30) u(i)
WHERE hash(s.contract, s.slot, u.i, 'p') % 10 <> 0;
DELETE FROM bench_preds WHERE ts >= {END} * 1000 OR ts < {T0} * 1000;

CREATE OR REPLACE TABLE bench_src_pdr_predictions AS
SELECT contract || '-' || slot || '-' || user AS ID, contract, pair, timeframe,
       NULL::BOOLEAN AS predvalue, stake, NULL::BOOLEAN AS truevalue, ts AS timestamp,
       'binance' AS source, NULL::DECIMAL(38, 18) AS payout, slot, user
FROM bench_preds ORDER BY ts;

CREATE OR REPLACE TABLE bench_src_pdr_truevals AS
SELECT s.contract || '-' || s.slot AS ID, s.pair AS token, s.tv_ts AS timestamp, s.truevalue,
       s.slot, ((hash(s.contract, s.slot, 'r') % 1000) / 100)::DECIMAL(38, 18) AS revenue,
       sum(p.stake) FILTER (WHERE p.predvalue) AS roundSumStakesUp, sum(p.stake) AS roundSumStakes
FROM bench_slots s JOIN bench_preds p USING (contract, slot)
WHERE NOT s.canceled AND s.tv_ts < {END} * 1000
GROUP BY ALL ORDER BY s.tv_ts;

-- 85% claim: half within two minutes of the resolution, the others up to {CLAIM} ms later.
CREATE OR REPLACE TABLE bench_src_pdr_payouts AS
SELECT ID, token, user, slot, timestamp, payout, predvalue, truevalue, stake FROM (
  SELECT p.contract || '-' || p.slot || '-' || p.user AS ID, p.pair AS token, p.user, p.slot,
         (CASE WHEN p.canceled THEN p.cancel_ts ELSE p.tv_ts END) +
           CASE WHEN p.claim < 50 THEN 1000 + hash(p.contract, p.slot, p.k, 'd') % 119000
                ELSE hash(p.contract, p.slot, p.k, 'd') % {CLAIM} END AS timestamp,
         CASE WHEN p.canceled THEN p.stake
              WHEN p.predvalue = p.truevalue THEN p.stake * 2 ELSE 0 END AS payout,
         p.predvalue, p.predvalue AS truevalue, p.stake
  FROM bench_preds p WHERE p.claim < 85)
WHERE timestamp < {END} * 1000 ORDER BY timestamp;

CREATE OR REPLACE TABLE bench_src_pdr_subscriptions AS
SELECT f.contract || '-0x' || lpad(printf('%x', h), 64, '0') || '-' || j AS ID, f.pair,
       f.timeframe, 'binance' AS source, '0x' || lpad(printf('%x', h), 64, '0') AS tx_id,
       3.5::DECIMAL(38, 18) AS last_price_value, h * 3600000 + j * 1000000 AS timestamp,
       '0x' || lpad(printf('%x', 255 + j), 40, '0') AS user
FROM bench_feeds f, generate_series({T0} // 3600, {END} // 3600 - 1) t(h), range(2) r(j)
ORDER BY timestamp;

CREATE OR REPLACE TABLE bench_src_pdr_slots AS FROM pdr_slots LIMIT 0;
DROP TABLE bench_slots;
DROP TABLE bench_preds;
)sql";

// Moves the source rows with timestamp in [{FROM}, {TO}) into the raw tables.
constexpr const char* kLoad = R"sql(
INSERT INTO pdr_predictions SELECT * FROM bench_src_pdr_predictions
  WHERE timestamp >= {FROM} AND timestamp < {TO} ORDER BY timestamp;
INSERT INTO pdr_truevals BY NAME SELECT * FROM bench_src_pdr_truevals
  WHERE timestamp >= {FROM} AND timestamp < {TO} ORDER BY timestamp;
INSERT INTO pdr_payouts SELECT * FROM bench_src_pdr_payouts
  WHERE timestamp >= {FROM} AND timestamp < {TO} ORDER BY timestamp;
INSERT INTO pdr_subscriptions SELECT * FROM bench_src_pdr_subscriptions
  WHERE timestamp >= {FROM} AND timestamp < {TO} ORDER BY timestamp;
)sql";

inline std::string Fill(std::string sql, const std::map<std::string, int64_t>& values) {
  for (const auto& [k, v] : values) {
    std::string key = "{" + k + "}";
    for (size_t pos; (pos = sql.find(key)) != std::string::npos;) {
      std::string value = "(";
      value.append(std::to_string(v)).append("::BIGINT)");
      sql.replace(pos, key.size(), value);
    }
  }
  return sql;
}

}  // namespace predlake::bench
