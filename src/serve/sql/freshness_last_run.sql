-- The header's last run: the newest run of the snapshot's ledger.
SELECT run_id, command, status, coalesce(ended_at_ms, started_at_ms)
FROM predlake_runs ORDER BY run_id DESC LIMIT 1
