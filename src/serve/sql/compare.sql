-- Compare, "Compared": the period's ($1, $2) figures of each item of $3 (comma-separated
-- predictoors or feeds, of the kind $4: 'predictoor' or 'feed'), in the order given.
WITH a AS (
  SELECT item, ${metric_sums}
  FROM serve_items
  WHERE kind = $4 AND serve_day_in(day, $1, $2) AND list_contains(string_split($3, ','), item)
  GROUP BY item),
l AS (SELECT unnest(string_split($3, ',')) AS item, generate_subscripts(string_split($3, ','), 1) AS pos),
b AS (SELECT *, ${ratios} FROM a)
SELECT l.item, ${metric_columns}
FROM l LEFT JOIN b ON b.item = l.item ORDER BY l.pos
