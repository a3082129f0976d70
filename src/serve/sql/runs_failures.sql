-- Runs, "Failed and aborted runs": the newest 50.
SELECT run_id, command, status, serve_iso_ms(started_at_ms) AS started_at, error
FROM predlake_runs WHERE status IN ('failed', 'aborted')
ORDER BY run_id DESC LIMIT 50
