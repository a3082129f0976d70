-- Rollback to CUT: the predictions of etl_stage_replaced (replaced_rollback.sql), each from its
-- version as of CUT (a re-submission at or after CUT is undone). A row's submissions are not older
-- than the row (its timestamp is its first submission's), so raw is read only from the earliest
-- replaced row on and in their slot range (range_replaced.sql): constants the scans of
-- pdr_predictions prune row groups with, where a subquery would not.
-- Parameters: S, CUT, rp_lo, rp_hi, rp_ts.
CREATE OR REPLACE TEMP VIEW etl_source_predictions AS
  SELECT p.*, false AS is_new
  FROM etl_view_submissions AS p
  JOIN etl_stage_replaced AS r ON r.ID = p.ID
  WHERE p.timestamp >= greatest(${S}, ${rp_ts}) AND p.timestamp < ${CUT}
    AND coalesce(p.superseded_at >= ${CUT}, true)
    AND p.slot BETWEEN ${rp_lo} AND ${rp_hi};
