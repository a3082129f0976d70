-- The newest run's id (NULL on an empty ledger): one writer numbers the runs.
SELECT max(run_id) FROM predlake_runs
