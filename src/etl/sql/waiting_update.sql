-- After an incremental publish of [C, F) (inside its transaction): the waiting events whose row
-- this run built leave predlake_waiting, and the window's events whose row is still not built join
-- it. A payout's prediction and a trueval's slot have the event's slot, so the built tables are
-- read only over the window events' slot ranges. No built row is deleted by an incremental run.
-- Parameters: C, F, wy_lo, wy_hi, wt_lo, wt_hi.
DELETE FROM predlake_waiting
WHERE table_name = 'pdr_payouts'
  AND target IN (SELECT ID FROM etl_stage_predictions WHERE is_new);
DELETE FROM predlake_waiting
WHERE table_name = 'pdr_truevals' AND target IN (SELECT ID FROM etl_stage_slots WHERE is_new);
INSERT INTO predlake_waiting
SELECT 'pdr_payouts', y.ID, y.ID, y.slot, y.timestamp
FROM pdr_payouts AS y
WHERE y.timestamp >= ${C} AND y.timestamp < ${F}
  AND NOT EXISTS (
    SELECT 1 FROM bronze_pdr_predictions AS b
    WHERE b.ID = y.ID AND b.slot BETWEEN ${wy_lo} AND ${wy_hi});
INSERT INTO predlake_waiting
-- A trueval without a slot waits for no row that can be built (target '').
SELECT 'pdr_truevals', t.ID, coalesce(split_part(t.ID, '-', 1) || '-' || t.slot, ''), t.slot,
       t.timestamp
FROM pdr_truevals AS t
WHERE t.timestamp >= ${C} AND t.timestamp < ${F}
  AND NOT EXISTS (
    SELECT 1 FROM bronze_pdr_slots AS s
    WHERE s.ID = split_part(t.ID, '-', 1) || '-' || t.slot
      AND s.slot BETWEEN ${wt_lo} AND ${wt_hi});
