-- Feed, "Top predictoors": the feed $3's 50 first predictoors of the period ($1, $2) in the
-- page's order.
WITH a AS (
  SELECT user, ${metric_sums}
  FROM serve_pd WHERE serve_day_in(day, $1, $2) AND contract = $3 GROUP BY user),
b AS (SELECT *, ${ratios} FROM a)
SELECT user, ${metric_columns} FROM b ORDER BY ${order}, user LIMIT 50
