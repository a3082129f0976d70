-- Every raw table's (and candle stream's) start and watermark.
SELECT table_name, start_ms, watermark_ms FROM predlake_watermarks ORDER BY table_name
