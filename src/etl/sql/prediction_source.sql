-- The predictions to compute: those first submitted in the window [C, F), all new, each as its
-- version as of F. Parameters: S, C, F.
CREATE OR REPLACE TEMP VIEW etl_source_predictions AS
  SELECT *, true AS is_new
  FROM etl_view_submissions
  WHERE timestamp >= greatest(${S}, ${C}) AND timestamp < ${F}
    AND first_timestamp >= greatest(${S}, ${C}) AND coalesce(superseded_at >= ${F}, true);
