-- predlake_waiting from scratch (a rebuild, a first run, or a lake whose set is not known to be
-- current): every update event with S <= timestamp < C whose target row is not built, as in
-- waiting.sql. Cost follows the size of the lake. Parameters: S, C.
DELETE FROM predlake_waiting;
INSERT INTO predlake_waiting
SELECT 'pdr_payouts', y.ID, y.ID, y.slot, y.timestamp
FROM pdr_payouts AS y
WHERE y.timestamp >= ${S} AND y.timestamp < ${C}
  AND NOT EXISTS (SELECT 1 FROM bronze_pdr_predictions AS b WHERE b.ID = y.ID);
INSERT INTO predlake_waiting
SELECT 'pdr_truevals', t.ID, split_part(t.ID, '-', 1) || '-' || t.slot, t.slot, t.timestamp
FROM pdr_truevals AS t
WHERE t.timestamp >= ${S} AND t.timestamp < ${C}
  AND NOT EXISTS (
    SELECT 1 FROM bronze_pdr_slots AS s
    WHERE s.ID = split_part(t.ID, '-', 1) || '-' || t.slot);
