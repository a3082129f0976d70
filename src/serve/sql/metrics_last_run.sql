-- /metrics: the newest run of the snapshot's ledger, and when the newest succeeded one ended.
SELECT run_id, command, status, coalesce(ended_at_ms, started_at_ms),
       (SELECT max(coalesce(ended_at_ms, started_at_ms)) FROM predlake_runs
        WHERE status = 'succeeded')
FROM predlake_runs ORDER BY run_id DESC LIMIT 1
