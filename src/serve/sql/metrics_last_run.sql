-- /metrics: the newest run of the snapshot's ledger, when the newest succeeded one ended, and when
-- the newest succeeded run that wrote lake data ended (every run but an export or
-- `validate --incremental`, which write none).
SELECT run_id, command, status, coalesce(ended_at_ms, started_at_ms),
       (SELECT max(coalesce(ended_at_ms, started_at_ms)) FROM predlake_runs
        WHERE status = 'succeeded'),
       (SELECT max(coalesce(ended_at_ms, started_at_ms)) FROM predlake_runs
        WHERE status = 'succeeded' AND command NOT IN ('export', 'validate --incremental'))
FROM predlake_runs ORDER BY run_id DESC LIMIT 1
