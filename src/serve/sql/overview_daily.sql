-- Overview, "Per day": the network's figures per day of the period. $1, $2: the period.
WITH d AS (
  SELECT day FROM serve_fd WHERE serve_day_in(day, $1, $2)
  UNION SELECT day FROM serve_sales WHERE serve_day_in(day, $1, $2)),
p AS (
  SELECT day, count(DISTINCT user) AS predictoors, ${metric_sums}
  FROM serve_pd WHERE serve_day_in(day, $1, $2) GROUP BY day),
f AS (
  SELECT day, CAST(sum(slots) AS BIGINT) AS slots,
         CAST(sum(slots_canceled) AS BIGINT) AS slots_canceled, sum(revenue) AS revenue
  FROM serve_fd WHERE serve_day_in(day, $1, $2) GROUP BY day),
s AS (
  SELECT day, CAST(sum(subscriptions) AS BIGINT) AS subscriptions, sum(sales) AS sales
  FROM serve_sales WHERE serve_day_in(day, $1, $2) GROUP BY day),
r AS (
  SELECT d.day, p.* EXCLUDE (day), ${ratios}, f.slots, f.slots_canceled, f.revenue,
         coalesce(s.subscriptions, 0) AS subscriptions,
         coalesce(s.sales, 0::DECIMAL(38, 18)) AS sales
  FROM d LEFT JOIN p ON p.day = d.day LEFT JOIN f ON f.day = d.day LEFT JOIN s ON s.day = d.day)
SELECT CAST(day AS VARCHAR) AS day, predictoors, slots, slots_canceled, ${metric_columns}, revenue,
       subscriptions, sales
FROM r ORDER BY r.day ${dir}
