-- Candle changes the next ETL run folds into the slots they decide.
SELECT count(*) FROM predlake_candle_changes
