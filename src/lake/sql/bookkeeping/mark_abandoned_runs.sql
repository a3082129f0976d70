-- Runs left "running" by a process that died (the writer lock says no other lives) become aborted, ended now (unix ms).
UPDATE predlake_runs SET status = 'aborted', ended_at_ms = coalesce(ended_at_ms, ${now_ms}), error = coalesce(error, 'the process stopped before the run finished') WHERE status = 'running'
