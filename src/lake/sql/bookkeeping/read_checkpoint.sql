-- The ETL checkpoint (no row before the first ETL run).
SELECT start_ms, checkpoint_ms FROM predlake_checkpoint WHERE id = 1
