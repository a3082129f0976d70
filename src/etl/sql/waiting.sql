-- Update events that wait for their target row: payouts and truevals with S <= timestamp < C whose
-- prediction or slot has no built row (e.g. claims of predictions made before the lake's start).
-- They stay in raw and are applied if the row is ever built. Read one slot range [lo, hi] at a time
-- (an event's target holds the event's slot, as the ETL's folds assume), or, when lo > hi, the
-- events whose slot is NULL: a join of the whole lake's events with its built rows does not fit a
-- bounded memory at tens of millions of rows. Parameters: S, C, lo, hi.
SELECT 'pdr_payouts' AS table_name, count(*) AS events, min(y.timestamp) AS oldest_timestamp
FROM pdr_payouts AS y
WHERE y.timestamp >= ${S} AND y.timestamp < ${C}
  AND CASE WHEN ${lo} <= ${hi} THEN y.slot BETWEEN ${lo} AND ${hi} ELSE y.slot IS NULL END
  AND NOT EXISTS (
    SELECT 1 FROM bronze_pdr_predictions AS b
    WHERE b.ID = y.ID AND (${lo} > ${hi} OR b.slot BETWEEN ${lo} AND ${hi}))
UNION ALL
SELECT 'pdr_truevals', count(*), min(t.timestamp)
FROM pdr_truevals AS t
WHERE t.timestamp >= ${S} AND t.timestamp < ${C}
  AND CASE WHEN ${lo} <= ${hi} THEN t.slot BETWEEN ${lo} AND ${hi} ELSE t.slot IS NULL END
  AND NOT EXISTS (
    SELECT 1 FROM bronze_pdr_slots AS s
    WHERE s.ID = split_part(t.ID, '-', 1) || '-' || t.slot
      AND (${lo} > ${hi} OR s.slot BETWEEN ${lo} AND ${hi}));
