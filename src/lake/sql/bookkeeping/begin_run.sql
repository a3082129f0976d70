-- A run's "running" row: $1 run_id, $2 command, $3 started_at_ms, $4 checkpoint before, $5 watermarks before (JSON), $6 pid.
INSERT INTO predlake_runs (run_id, command, status, started_at_ms, checkpoint_before_ms, watermarks_before, pid) VALUES ($1, $2, 'running', $3, $4, $5, $6)
