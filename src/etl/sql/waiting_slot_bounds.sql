-- The slot range of the update events with S <= timestamp < C (payouts and truevals; an empty
-- range, lo > hi, when there are none), which waiting.sql and waiting_full.sql read in parts of it.
-- Parameters: S, C.
SELECT coalesce(min(lo), 0) AS lo, coalesce(max(hi), -1) AS hi
FROM (
  SELECT min(slot) AS lo, max(slot) AS hi
  FROM pdr_payouts WHERE timestamp >= ${S} AND timestamp < ${C}
  UNION ALL
  SELECT min(slot), max(slot)
  FROM pdr_truevals WHERE timestamp >= ${S} AND timestamp < ${C}
);
