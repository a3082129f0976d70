-- The newest run of the ledger but the run RUN (the export's own).
SELECT max(run_id) FROM predlake_runs WHERE run_id <> ${run}
