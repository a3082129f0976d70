-- Feed, "Trueval delay": how long after its epoch's end the feed $3's slots of the period ($1, $2)
-- got their trueval, in seconds.
WITH d AS (
  SELECT (trueval_timestamp - (slot + seconds_per_epoch) * 1000) / 1000.0 AS s
  FROM serve_slots
  WHERE serve_second_in(slot, $1, $2) AND contract = $3 AND trueval_timestamp IS NOT NULL)
SELECT CAST(count(*) AS BIGINT) AS slots, CAST(avg(s) AS DOUBLE) AS mean_s,
       CAST(quantile_cont(s, 0.5) AS DOUBLE) AS median_s,
       CAST(quantile_cont(s, 0.95) AS DOUBLE) AS p95_s, CAST(max(s) AS DOUBLE) AS max_s
FROM d
