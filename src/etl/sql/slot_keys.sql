-- Slots that get their first prediction in the window [C, F): new rows to compute.
-- Parameters: S, C, F, CUT, np_lo, np_hi.
INSERT INTO etl_stage_slot_keys
SELECT DISTINCT etl_contract(p.ID, p.contract) || '-' || p.slot AS ID, p.slot, true
FROM etl_view_submissions AS p
WHERE p.timestamp >= greatest(${S}, ${C}) AND p.timestamp < ${F} AND p.is_first
  AND NOT EXISTS (
    SELECT 1 FROM bronze_pdr_slots AS l
    WHERE l.ID = etl_contract(p.ID, p.contract) || '-' || p.slot
      AND l.slot BETWEEN ${np_lo} AND ${np_hi} AND l.timestamp < ${CUT});
