-- Predictions of the window [C, F): new rows to compute. Parameters: S, C, F.
INSERT INTO etl_stage_prediction_keys
SELECT ID, slot, true
FROM pdr_predictions
WHERE timestamp >= greatest(${S}, ${C}) AND timestamp < ${F};
