-- A run's outcome: $1 run_id, $2 status, $3 ended_at_ms, $4 and $5 its window, $6 checkpoint after, $7 watermarks after (JSON), $8 error, $9 detail (JSON).
UPDATE predlake_runs SET status = $2, ended_at_ms = $3, window_start_ms = $4, window_end_ms = $5, checkpoint_after_ms = $6, watermarks_after = $7, error = $8, detail = $9 WHERE run_id = $1
