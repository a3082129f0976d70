-- Predictoor, "Summary": the predictoor $3's period in one row. $1, $2: the period.
WITH a AS (
  SELECT CAST(count(DISTINCT contract) AS BIGINT) AS feeds, ${metric_sums}
  FROM serve_pd WHERE serve_day_in(day, $1, $2) AND user = $3),
b AS (SELECT *, ${ratios} FROM a)
SELECT feeds, ${metric_columns} FROM b
