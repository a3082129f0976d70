-- Predictoors, the leaderboard: one row per predictoor of the period, ranked by cash P&L; the
-- addresses of $3 (comma-separated, predictoor_ss.my_addresses) first. $1, $2: the period.
WITH a AS (
  SELECT user, CAST(count(DISTINCT contract) AS BIGINT) AS feeds, ${metric_sums}
  FROM serve_pd WHERE serve_day_in(day, $1, $2) GROUP BY user),
b AS (
  SELECT *, ${ratios}, user IN (SELECT unnest(string_split($3, ','))) AS mine,
         row_number() OVER (ORDER BY cash_pnl DESC NULLS LAST, user) AS "rank"
  FROM a)
SELECT ${predictoor_columns} FROM b ORDER BY mine DESC, ${order}, user
