-- The slot range of the slots to compute (an empty range when there are none).
SELECT coalesce(min(slot), 0) AS k_lo, coalesce(max(slot), -1) AS k_hi
FROM etl_stage_slot_keys;
