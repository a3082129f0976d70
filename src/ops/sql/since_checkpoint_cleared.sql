-- Runs since the mark that succeeded leaving no checkpoint (a rollback to the start, or a rebuild).
SELECT count(*) FROM predlake_runs WHERE run_id > ${run_id} AND status = 'succeeded' AND checkpoint_after_ms IS NULL
