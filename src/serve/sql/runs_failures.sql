-- Runs, "Failed and aborted runs": the newest 50 started from $1 (unix ms; NULL: any time).
SELECT run_id, command, status, serve_iso_ms(started_at_ms) AS started_at, error
FROM predlake_runs WHERE status IN ('failed', 'aborted') AND ($1 IS NULL OR started_at_ms >= CAST($1 AS BIGINT))
ORDER BY run_id DESC LIMIT 50
