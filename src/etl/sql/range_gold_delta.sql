-- The day range (days since 1970-01-01) of the predictoor groups the delta changes (an empty range
-- when none), so that merging with the live groups reads only those days.
SELECT coalesce(min(day) - DATE '1970-01-01', 0) AS gd_lo,
       coalesce(max(day) - DATE '1970-01-01', -1) AS gd_hi
FROM etl_stage_gold_predictoor_delta;
