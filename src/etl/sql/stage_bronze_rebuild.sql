-- A rebuild's bronze rows: ordinary tables in the lake, because the publish makes them the live
-- tables by renaming them (no copy).
CREATE TABLE etl_stage_slots AS SELECT *, false AS is_new FROM bronze_pdr_slots LIMIT 0;
CREATE TABLE etl_stage_predictions AS
  SELECT *, false AS is_new FROM bronze_pdr_predictions LIMIT 0;
