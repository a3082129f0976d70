-- After a rollback to CUT publishes (inside its transaction): the events from CUT on leave
-- predlake_waiting, and the events before CUT whose row the rollback deleted join it. A deleted
-- row's events have its slot, which is at least dy_lo / dt_lo (waiting_rollback_range.sql); an
-- event of an older row that is neither built nor waiting had its row deleted. Rows recomputed by
-- the rollback stay built. Parameters: S, CUT, dy_lo, dt_lo.
DELETE FROM predlake_waiting WHERE timestamp >= ${CUT};
INSERT INTO predlake_waiting
SELECT 'pdr_payouts', y.ID, y.ID, y.slot, y.timestamp
FROM pdr_payouts AS y
WHERE y.timestamp >= ${S} AND y.timestamp < ${CUT} AND y.slot >= ${dy_lo}
  AND NOT EXISTS (
    SELECT 1 FROM bronze_pdr_predictions AS b WHERE b.ID = y.ID AND b.slot >= ${dy_lo})
  AND NOT EXISTS (
    SELECT 1 FROM predlake_waiting AS w
    WHERE w.table_name = 'pdr_payouts' AND w.ID = y.ID AND w.slot >= ${dy_lo});
INSERT INTO predlake_waiting
SELECT 'pdr_truevals', t.ID, split_part(t.ID, '-', 1) || '-' || t.slot, t.slot, t.timestamp
FROM pdr_truevals AS t
WHERE t.timestamp >= ${S} AND t.timestamp < ${CUT} AND t.slot >= ${dt_lo}
  AND NOT EXISTS (
    SELECT 1 FROM bronze_pdr_slots AS s
    WHERE s.ID = split_part(t.ID, '-', 1) || '-' || t.slot AND s.slot >= ${dt_lo})
  AND NOT EXISTS (
    SELECT 1 FROM predlake_waiting AS w
    WHERE w.table_name = 'pdr_truevals' AND w.ID = t.ID AND w.slot >= ${dt_lo});
