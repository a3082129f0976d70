-- The day ranges (days since 1970-01-01) of the feed groups and sales days to recompute; empty
-- ranges when there are none.
SELECT coalesce((SELECT min(day) - DATE '1970-01-01' FROM etl_stage_gold_feed_keys), 0) AS d_lo,
       coalesce((SELECT max(day) - DATE '1970-01-01' FROM etl_stage_gold_feed_keys), -1) AS d_hi,
       coalesce((SELECT min(day) - DATE '1970-01-01' FROM etl_stage_gold_sales_keys), 0) AS sd_lo,
       coalesce((SELECT max(day) - DATE '1970-01-01' FROM etl_stage_gold_sales_keys), -1) AS sd_hi;
