-- The slot range of the predictions to compute (an empty range when there are none).
SELECT coalesce(min(slot), 0) AS pk_lo, coalesce(max(slot), -1) AS pk_hi
FROM etl_source_predictions;
