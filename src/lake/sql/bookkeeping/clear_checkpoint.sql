-- No ETL checkpoint (the built tables hold nothing).
DELETE FROM predlake_checkpoint
