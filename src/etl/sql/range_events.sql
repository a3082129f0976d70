-- The slot range the window's slot events cover (an empty range when there are none), so that the
-- fold reads only that part of bronze_pdr_slots.
SELECT coalesce(min(slot), 0) AS ev_lo, coalesce(max(slot), -1) AS ev_hi
FROM etl_stage_slot_events;
