-- The slot range of the predictions to compute in this pass, those with PA <= timestamp < PB (an
-- empty range when there are none). Parameters: PA, PB.
SELECT coalesce(min(slot), 0) AS pk_lo, coalesce(max(slot), -1) AS pk_hi
FROM etl_source_predictions
WHERE timestamp >= ${PA} AND timestamp < ${PB};
