-- predlake_waiting from scratch (a rebuild, a first run, or a lake whose set is not known to be
-- current): every update event with S <= timestamp < C whose target row is not built, as in
-- waiting.sql, one slot range [lo, hi] at a time (lo > hi: the events whose slot is NULL); the
-- caller empties the table first. Cost follows the size of the lake. Parameters: S, C, lo, hi.
INSERT INTO predlake_waiting
SELECT 'pdr_payouts', y.ID, y.ID, y.slot, y.timestamp
FROM pdr_payouts AS y
WHERE y.timestamp >= ${S} AND y.timestamp < ${C}
  AND CASE WHEN ${lo} <= ${hi} THEN y.slot BETWEEN ${lo} AND ${hi} ELSE y.slot IS NULL END
  AND NOT EXISTS (
    SELECT 1 FROM bronze_pdr_predictions AS b
    WHERE b.ID = y.ID AND (${lo} > ${hi} OR b.slot BETWEEN ${lo} AND ${hi}));
INSERT INTO predlake_waiting
-- A trueval without a slot waits for no row that can be built (target '').
SELECT 'pdr_truevals', t.ID, coalesce(split_part(t.ID, '-', 1) || '-' || t.slot, ''), t.slot,
       t.timestamp
FROM pdr_truevals AS t
WHERE t.timestamp >= ${S} AND t.timestamp < ${C}
  AND CASE WHEN ${lo} <= ${hi} THEN t.slot BETWEEN ${lo} AND ${hi} ELSE t.slot IS NULL END
  AND NOT EXISTS (
    SELECT 1 FROM bronze_pdr_slots AS s
    WHERE s.ID = split_part(t.ID, '-', 1) || '-' || t.slot
      AND (${lo} > ${hi} OR s.slot BETWEEN ${lo} AND ${hi}));
