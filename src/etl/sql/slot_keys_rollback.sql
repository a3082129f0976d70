-- Rollback to CUT: live slots created before CUT that an event at or after CUT changed; they are
-- recomputed from raw as of CUT. Parameters: CUT.
INSERT INTO etl_stage_slot_keys
SELECT ID, slot, false
FROM bronze_pdr_slots
WHERE timestamp < ${CUT} AND last_event_timestamp >= ${CUT};
