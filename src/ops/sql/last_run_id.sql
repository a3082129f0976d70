-- The newest run in the ledger (the mark's run).
SELECT max(run_id) FROM predlake_runs
