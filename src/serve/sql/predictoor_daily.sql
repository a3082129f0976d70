-- Predictoor, "Per day": the predictoor $3's figures per day of the period ($1, $2).
WITH a AS (
  SELECT day, ${metric_sums}
  FROM serve_pd WHERE serve_day_in(day, $1, $2) AND user = $3 GROUP BY day),
b AS (SELECT *, ${ratios} FROM a)
SELECT CAST(day AS VARCHAR) AS day, ${metric_columns} FROM b ORDER BY b.day
