-- The folded slots whose trueval or status changed in this run, one row per slot: the update
-- events for the predictions of those slots. Parameters: CUT, ev_lo, ev_hi.
INSERT INTO etl_stage_slot_changes
SELECT s.ID, s.slot, s.truevalue, s.revenue, s.status, s.status_timestamp
FROM etl_stage_slots AS s
JOIN bronze_pdr_slots AS l ON l.ID = s.ID
WHERE NOT s.is_new
  AND l.slot BETWEEN ${ev_lo} AND ${ev_hi} AND l.timestamp < ${CUT}
  AND (s.status IS DISTINCT FROM l.status
       OR s.trueval_timestamp IS DISTINCT FROM l.trueval_timestamp);
