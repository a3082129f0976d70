-- The ETL checkpoint set, by a run, now (unix ms).
INSERT INTO predlake_checkpoint VALUES (1, ${start_ms}, ${checkpoint_ms}, ${run_id}, ${now_ms}) ON CONFLICT (id) DO UPDATE SET start_ms = excluded.start_ms, checkpoint_ms = excluded.checkpoint_ms, run_id = excluded.run_id, updated_at_ms = excluded.updated_at_ms
