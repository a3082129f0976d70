-- The tables whose rows a succeeded run after the run PREVIOUS_RUN deleted (`raw drop`).
SELECT DISTINCT t.table_name
FROM predlake_run_tables AS t JOIN predlake_runs AS r USING (run_id)
WHERE r.status = 'succeeded' AND t.rows_deleted > 0 AND t.run_id > ${previous_run}
