-- Compare: what the address $1 is in the snapshot: rows as a predictoor, and the pair and timeframe
-- when it is a feed with figures (NULL otherwise).
SELECT (SELECT count(*) FROM serve_pd WHERE user = $1) AS predictoor_rows,
       (SELECT min(pair) || ' ' || min(timeframe) FROM serve_fd WHERE contract = $1) AS feed_name
