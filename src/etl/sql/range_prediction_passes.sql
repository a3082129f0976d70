-- The span of the predictions to compute, for a window longer than one pass (the pipeline's
-- Passes): the first and last timestamp of their versions as of F (NULLs when there are none).
SELECT min(timestamp) AS first_ms, max(timestamp) AS last_ms FROM etl_source_predictions;
