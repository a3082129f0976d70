-- Predictoor, "Per feed": the predictoor $3's period per feed. $1, $2: the period.
WITH a AS (
  SELECT contract, min(pair) AS pair, min(timeframe) AS timeframe, min(source) AS source,
         ${metric_sums}
  FROM serve_pd WHERE serve_day_in(day, $1, $2) AND user = $3 GROUP BY contract),
b AS (SELECT *, ${ratios} FROM a)
SELECT contract, pair, timeframe, source, ${metric_columns} FROM b ORDER BY ${order}, contract
