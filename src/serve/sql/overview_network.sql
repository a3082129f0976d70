-- Overview, "Network": the period's totals in one row. $1, $2: the period.
WITH p AS (
  SELECT count(DISTINCT user) AS predictoors, count(DISTINCT contract) AS active_feeds,
         ${metric_sums}
  FROM serve_pd WHERE serve_day_in(day, $1, $2)),
f AS (
  SELECT CAST(coalesce(sum(slots), 0) AS BIGINT) AS slots,
         CAST(coalesce(sum(slots_canceled), 0) AS BIGINT) AS slots_canceled,
         sum(revenue) AS revenue
  FROM serve_fd WHERE serve_day_in(day, $1, $2)),
s AS (
  SELECT CAST(coalesce(sum(subscriptions), 0) AS BIGINT) AS subscriptions,
         coalesce(sum(sales), 0::DECIMAL(38, 18)) AS sales
  FROM serve_sales WHERE serve_day_in(day, $1, $2)),
r AS (SELECT p.*, ${ratios} FROM p)
SELECT predictoors, active_feeds, slots, slots_canceled, ${metric_columns}, revenue, subscriptions,
       sales
FROM r, f, s
