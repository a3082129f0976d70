-- Predictoors, "Total of my addresses": the leaderboard's columns summed over the addresses of $3
-- (comma-separated). $1, $2: the period.
WITH a AS (
  SELECT CAST(count(DISTINCT contract) AS BIGINT) AS feeds,
         CAST(count(DISTINCT day) FILTER (WHERE predictions > 0) AS BIGINT) AS days_active,
         ${metric_sums}
  FROM serve_pd
  WHERE serve_day_in(day, $1, $2) AND user IN (SELECT unnest(string_split($3, ',')))),
b AS (
  SELECT 'total' AS user, *, ${ratios}, ${returns}, true AS mine, CAST(NULL AS BIGINT) AS "rank"
  FROM a)
SELECT ${predictoor_columns} FROM b
