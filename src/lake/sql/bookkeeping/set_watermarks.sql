-- Several tables' watermarks inserted or replaced in one statement: rows of (table_name, start_ms, watermark_ms, run_id, updated_at_ms).
INSERT INTO predlake_watermarks VALUES ${rows} ON CONFLICT (table_name) DO UPDATE SET start_ms = excluded.start_ms, watermark_ms = excluded.watermark_ms, run_id = excluded.run_id, updated_at_ms = excluded.updated_at_ms
