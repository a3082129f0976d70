-- Rollback to CUT: live predictions made before CUT that an event at or after CUT changed; they
-- are recomputed from raw as of CUT. Parameters: CUT.
INSERT INTO etl_stage_prediction_keys
SELECT ID, slot, false
FROM bronze_pdr_predictions
WHERE timestamp < ${CUT} AND last_event_timestamp >= ${CUT};
