-- Update events that wait for their target row: payouts and truevals with S <= timestamp < C whose
-- prediction or slot has no built row (e.g. claims of predictions made before the lake's start).
-- They stay in raw and are applied if the row is ever built. Parameters: S, C.
SELECT 'pdr_payouts' AS table_name, count(*) AS events, min(y.timestamp) AS oldest_timestamp
FROM pdr_payouts AS y
WHERE y.timestamp >= ${S} AND y.timestamp < ${C}
  AND NOT EXISTS (SELECT 1 FROM bronze_pdr_predictions AS b WHERE b.ID = y.ID)
UNION ALL
SELECT 'pdr_truevals', count(*), min(t.timestamp)
FROM pdr_truevals AS t
WHERE t.timestamp >= ${S} AND t.timestamp < ${C}
  AND NOT EXISTS (
    SELECT 1 FROM bronze_pdr_slots AS s
    WHERE s.ID = split_part(t.ID, '-', 1) || '-' || t.slot);
