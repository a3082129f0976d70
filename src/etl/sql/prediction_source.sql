-- The predictions to compute: those of the window [C, F), all new. Parameters: S, C, F.
CREATE OR REPLACE TEMP VIEW etl_source_predictions AS
  SELECT *, true AS is_new
  FROM pdr_predictions
  WHERE timestamp >= greatest(${S}, ${C}) AND timestamp < ${F};
