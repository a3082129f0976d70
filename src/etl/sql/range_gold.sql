-- The day ranges (days since 1970-01-01) of the gold groups to recompute; empty ranges when none.
SELECT coalesce(min(d), 0) AS d_lo, coalesce(max(d), -1) AS d_hi,
       coalesce((SELECT min(day) - DATE '1970-01-01' FROM etl_stage_gold_sales_keys), 0) AS sd_lo,
       coalesce((SELECT max(day) - DATE '1970-01-01' FROM etl_stage_gold_sales_keys), -1) AS sd_hi
FROM (
  SELECT day - DATE '1970-01-01' AS d FROM etl_stage_gold_predictoor_keys
  UNION ALL
  SELECT day - DATE '1970-01-01' FROM etl_stage_gold_feed_keys
);
