-- Search: the predictoors whose address holds $1 (lower-case hex, without 0x), with their
-- prediction count in the snapshot; the addresses of $2 (comma-separated,
-- predictoor_ss.my_addresses) too, with 0 when they have none. The first 50 by address; total: the
-- count of every match.
WITH u AS (
  SELECT user, CAST(sum(predictions) AS BIGINT) AS predictions FROM serve_pd
  WHERE contains(user, $1) GROUP BY user
  UNION ALL
  SELECT m AS user, CAST(0 AS BIGINT) AS predictions FROM unnest(string_split($2, ',')) AS t(m)
  WHERE m <> '' AND contains(m, $1) AND m NOT IN (SELECT user FROM serve_pd))
SELECT 'predictoor' AS match, user, predictions, CAST(count(*) OVER () AS BIGINT) AS total
FROM u ORDER BY user LIMIT 50
