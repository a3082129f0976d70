-- One table's watermark inserted or replaced: $1 table_name, $2 start_ms, $3 watermark_ms, $4 the run, $5 now (unix ms).
INSERT INTO predlake_watermarks VALUES ($1, $2, $3, $4, $5) ON CONFLICT (table_name) DO UPDATE SET start_ms = excluded.start_ms, watermark_ms = excluded.watermark_ms, run_id = excluded.run_id, updated_at_ms = excluded.updated_at_ms
