-- Compare, "Per day": the figures per day of the period ($1, $2) of each item of $3
-- (comma-separated predictoors or feeds, of the kind $4: 'predictoor' or 'feed').
WITH a AS (
  SELECT item, day, ${metric_sums}
  FROM serve_items
  WHERE kind = $4 AND serve_day_in(day, $1, $2) AND list_contains(string_split($3, ','), item)
  GROUP BY item, day),
b AS (SELECT *, ${ratios} FROM a)
SELECT CAST(day AS VARCHAR) AS day, item, ${metric_columns} FROM b ORDER BY b.day, b.item
