-- Rollback to CUT: the live predictions made before CUT that an event at or after CUT changed
-- (kept as they are in etl_stage_replaced); prediction_source_rollback.sql recomputes them from raw
-- as of CUT. Bronze rows are appended in timestamp order and an event follows its row by at most
-- days, so the zone maps of last_event_timestamp skip all but the table's last row groups.
-- Parameters: CUT.
INSERT INTO etl_stage_replaced
SELECT * FROM bronze_pdr_predictions
WHERE timestamp < ${CUT} AND last_event_timestamp >= ${CUT};
