-- The slot range and the earliest creation time of the predictions a rollback recomputes (an empty
-- range when there are none), so that prediction_source_rollback.sql reads raw only from there on.
SELECT coalesce(min(slot), 0) AS rp_lo, coalesce(max(slot), -1) AS rp_hi,
       coalesce(min(timestamp), 0) AS rp_ts
FROM etl_stage_replaced;
