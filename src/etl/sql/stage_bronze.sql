-- The bronze rows to publish (is_new rows are inserted, the others replace the live row with the
-- same ID): TEMP tables, so that staging never reaches the lake's log.
CREATE TEMP TABLE etl_stage_slots AS SELECT *, false AS is_new FROM bronze_pdr_slots LIMIT 0;
CREATE TEMP TABLE etl_stage_predictions AS
  SELECT *, false AS is_new FROM bronze_pdr_predictions LIMIT 0;
