-- Rollback to CUT: the live predictions made before CUT that an event at or after CUT changed
-- (kept as they are in etl_stage_replaced); they are recomputed from raw as of CUT, each from its
-- version as of CUT (a re-submission at or after CUT is undone).
-- Parameters: S, CUT.
INSERT INTO etl_stage_replaced
SELECT * FROM bronze_pdr_predictions
WHERE timestamp < ${CUT} AND last_event_timestamp >= ${CUT};

CREATE OR REPLACE TEMP VIEW etl_source_predictions AS
  SELECT p.*, false AS is_new
  FROM etl_view_submissions AS p
  JOIN etl_stage_replaced AS r ON r.ID = p.ID
  WHERE p.timestamp >= ${S} AND p.timestamp < ${CUT} AND coalesce(p.superseded_at >= ${CUT}, true)
    AND p.slot BETWEEN (SELECT min(slot) FROM etl_stage_replaced)
                   AND (SELECT max(slot) FROM etl_stage_replaced);
