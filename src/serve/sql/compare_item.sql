-- Compare: what the address $1 is in the snapshot: rows as a predictoor, and, when it is a feed (of
-- pdr_contracts, or with figures or sales), its pair and timeframe (NULL when it is no feed).
WITH f AS (
  SELECT pair, timeframe FROM pdr_contracts WHERE ID = $1
  UNION ALL SELECT pair, timeframe FROM serve_fd WHERE contract = $1
  UNION ALL SELECT pair, timeframe FROM serve_sales WHERE contract = $1)
SELECT (SELECT count(*) FROM serve_pd WHERE user = $1) AS predictoor_rows,
       (SELECT CASE WHEN count(*) > 0
                    THEN coalesce(min(pair), '?') || ' ' || coalesce(min(timeframe), '?') END
        FROM f) AS feed_name
