-- The newest run of a command that changes data (validate --incremental's runs change none).
SELECT status, error FROM predlake_runs WHERE command <> ${validate_command} ORDER BY run_id DESC LIMIT 1
