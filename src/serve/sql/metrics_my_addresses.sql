-- /metrics: each of predictoor_ss.my_addresses ($1, comma-separated, lower case), one row each,
-- also without predictions, as of the snapshot's checkpoint $2 (unix ms): its predictions and the
-- newest one's time (bronze_pdr_predictions.timestamp, ms); over the slots of the 24 hours before
-- the checkpoint its predictions, resolved (paying slot, trueval and predvalue known), correct and
-- unrevealed (paying slot, predvalue not revealed) ones, as the gold tables count them
-- (docs/etl.md); and its unclaimed payouts and pending refunds (serve_unclaimed), with the start
-- of the oldest slot day that holds an unclaimed payout (ms; NULL without one).
WITH me AS (SELECT DISTINCT unnest(string_split($1, ',')) AS user),
mine AS (
  SELECT user, slot, timestamp, status, predvalue, truevalue
  FROM bronze_pdr_predictions WHERE user IN (SELECT user FROM me)
),
ever AS (SELECT user, count(*) AS predictions, max(timestamp) AS last_ms FROM mine GROUP BY user),
day AS (
  SELECT user, count(*) AS predictions,
         count(*) FILTER (WHERE status = 'paying' AND predvalue IS NOT NULL
                          AND truevalue IS NOT NULL) AS resolved,
         count(*) FILTER (WHERE status = 'paying' AND predvalue IS NOT NULL
                          AND truevalue IS NOT NULL AND predvalue = truevalue) AS correct,
         count(*) FILTER (WHERE status = 'paying' AND predvalue IS NULL) AS unrevealed
  FROM mine
  WHERE slot >= ($2 - 86400000) // 1000 AND slot < $2 // 1000
  GROUP BY user
),
unclaimed AS (
  SELECT user, sum(unclaimed_predictions) AS unclaimed_predictions,
         sum(unclaimed_stake) AS unclaimed_stake, sum(refunds_pending) AS refunds_pending,
         sum(refund_pending) AS refund_pending,
         (min(day) FILTER (WHERE unclaimed_predictions > 0) - DATE '1970-01-01')
           * CAST(86400000 AS BIGINT) AS oldest_unclaimed_ms
  FROM serve_unclaimed WHERE user IN (SELECT user FROM me) GROUP BY user
)
SELECT me.user, coalesce(ever.predictions, 0), ever.last_ms, coalesce(day.predictions, 0),
       coalesce(day.resolved, 0), coalesce(day.correct, 0), coalesce(day.unrevealed, 0),
       CAST(coalesce(unclaimed.unclaimed_predictions, 0) AS BIGINT),
       CAST(coalesce(unclaimed.unclaimed_stake, 0) AS DOUBLE),
       CAST(coalesce(unclaimed.refunds_pending, 0) AS BIGINT),
       CAST(coalesce(unclaimed.refund_pending, 0) AS DOUBLE), unclaimed.oldest_unclaimed_ms
FROM me
LEFT JOIN ever USING (user) LEFT JOIN day USING (user) LEFT JOIN unclaimed USING (user)
ORDER BY me.user
