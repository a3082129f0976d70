-- A run's per-table counts, before they are written (again).
DELETE FROM predlake_run_tables WHERE run_id = ${run_id}
