-- Runs, "Runs": the newest 200 runs of the snapshot's ledger started from $1 (unix ms; NULL: any
-- time).
WITH r AS (
  SELECT run_id, command, status, serve_iso_ms(started_at_ms) AS started_at,
         serve_iso_ms(ended_at_ms) AS ended_at,
         (ended_at_ms - started_at_ms) / 1000.0 AS duration_s,
         serve_iso(window_start_ms) AS window_start, serve_iso(window_end_ms) AS window_end,
         serve_iso(checkpoint_after_ms) AS checkpoint_after, error
  FROM predlake_runs WHERE $1 IS NULL OR started_at_ms >= CAST($1 AS BIGINT)
  ORDER BY run_id DESC LIMIT 200)
SELECT run_id, command, status, started_at, ended_at, CAST(duration_s AS DOUBLE) AS duration_s,
       window_start, window_end, checkpoint_after, error
FROM r ORDER BY ${order}, run_id DESC
