-- Predictoors, the leaderboard: one row per predictoor of the period, ranked by cash P&L among the
-- rows the filters keep; the addresses of $3 (comma-separated, predictoor_ss.my_addresses) first,
-- each of them shown even without predictions (zero counts, no rank). $1, $2: the period; $4 to
-- $10: the filters (part_metric_filter, part_feed_filter).
WITH a AS (
  SELECT user, CAST(count(DISTINCT contract) AS BIGINT) AS feeds,
         CAST(count(DISTINCT day) FILTER (WHERE predictions > 0) AS BIGINT) AS days_active,
         ${metric_sums}
  FROM serve_pd WHERE serve_day_in(day, $1, $2) AND ${feed_filter} GROUP BY user),
m AS (SELECT DISTINCT unnest(string_split($3, ',')) AS user),
z AS (
  SELECT * FROM a
  UNION ALL BY NAME
  SELECT user, CAST(0 AS BIGINT) AS feeds, CAST(0 AS BIGINT) AS days_active,
         CAST(0 AS BIGINT) AS predictions, CAST(0 AS BIGINT) AS resolved,
         CAST(0 AS BIGINT) AS unrevealed, CAST(0 AS BIGINT) AS correct,
         0::DECIMAL(38, 18) AS stake
  FROM m WHERE user <> '' AND user NOT IN (SELECT user FROM a)),
b AS (SELECT *, ${ratios}, ${returns}, user IN (SELECT user FROM m) AS mine FROM z),
c AS (SELECT * FROM b WHERE ${metric_filter}),
d AS (
  SELECT *, CASE WHEN predictions > 0
                 THEN row_number() OVER (ORDER BY predictions > 0 DESC, cash_pnl DESC NULLS LAST,
                                                  user) END AS "rank"
  FROM c)
SELECT ${predictoor_columns} FROM d ORDER BY mine DESC, ${order}, user
