-- Feed, "Per day": the feed $3's figures per day of the period ($1, $2).
WITH d AS (
  SELECT day FROM serve_fd WHERE serve_day_in(day, $1, $2) AND contract = $3
  UNION SELECT day FROM serve_sales WHERE serve_day_in(day, $1, $2) AND contract = $3),
f AS (SELECT * FROM serve_fd WHERE serve_day_in(day, $1, $2) AND contract = $3),
s AS (
  SELECT day, CAST(sum(subscriptions) AS BIGINT) AS subscriptions,
         CAST(sum(buyers) AS BIGINT) AS buyers, sum(sales) AS sales
  FROM serve_sales WHERE serve_day_in(day, $1, $2) AND contract = $3 GROUP BY day)
SELECT CAST(d.day AS VARCHAR) AS day, coalesce(f.slots, 0) AS slots,
       coalesce(f.slots_canceled, 0) AS slots_canceled, coalesce(f.predictions, 0) AS predictions,
       f.accuracy,
       CASE WHEN f.consensus_stake > 0
            THEN CAST(f.consensus_correct_stake AS DOUBLE) / CAST(f.consensus_stake AS DOUBLE) END
         AS consensus_accuracy,
       f.stake, f.cash_pnl, coalesce(s.subscriptions, 0) AS subscriptions,
       coalesce(s.buyers, 0) AS buyers, coalesce(s.sales, 0::DECIMAL(38, 18)) AS sales, f.revenue
FROM d LEFT JOIN f ON f.day = d.day LEFT JOIN s ON s.day = d.day
ORDER BY d.day
