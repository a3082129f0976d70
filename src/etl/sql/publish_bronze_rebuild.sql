-- Publish of a rebuild: the staged bronze tables hold every row, already in timestamp order, so
-- they become the live tables (metadata only, no copy) inside the publish transaction.
DROP TABLE bronze_pdr_slots;
ALTER TABLE etl_stage_slots DROP COLUMN is_new;
ALTER TABLE etl_stage_slots RENAME TO bronze_pdr_slots;

DROP TABLE bronze_pdr_predictions;
ALTER TABLE etl_stage_predictions DROP COLUMN is_new;
ALTER TABLE etl_stage_predictions RENAME TO bronze_pdr_predictions;
