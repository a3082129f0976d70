-- How many of the candle health tables the lake has (3 once a writer of this version opened it).
SELECT count(*) FROM duckdb_tables()
WHERE table_name IN ('predlake_ohlcv_streams', 'predlake_candle_gaps', 'predlake_candle_changes')
