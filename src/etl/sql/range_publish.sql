-- The slot ranges of the staged rows that replace live rows, so that the UPDATEs of the publish
-- (and the gold delta) read only that part of the live tables.
SELECT coalesce((SELECT min(slot) FROM etl_stage_slots WHERE NOT is_new), 0) AS su_lo,
       coalesce((SELECT max(slot) FROM etl_stage_slots WHERE NOT is_new), -1) AS su_hi,
       coalesce((SELECT min(slot) FROM etl_stage_predictions WHERE NOT is_new), 0) AS pu_lo,
       coalesce((SELECT max(slot) FROM etl_stage_predictions WHERE NOT is_new), -1) AS pu_hi;
