-- The lowest checkpoint a run since the mark left.
SELECT min(checkpoint_after_ms) FROM predlake_runs WHERE run_id > ${run_id} AND status = 'succeeded'
