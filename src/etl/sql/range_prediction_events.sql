-- The slot range the prediction update events cover (an empty range when there are none), so that
-- the fold reads only that part of bronze_pdr_predictions.
SELECT coalesce(min(slot), 0) AS pe_lo, coalesce(max(slot), -1) AS pe_hi
FROM (SELECT slot FROM etl_stage_slot_changes UNION ALL SELECT slot FROM etl_stage_payout_events
      UNION ALL SELECT slot FROM etl_stage_resubmit_events);
