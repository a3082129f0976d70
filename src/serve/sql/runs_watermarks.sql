-- Runs, "Raw tables: watermarks".
SELECT table_name, serve_iso(start_ms) AS start_at, serve_iso(watermark_ms) AS watermark_at,
       serve_iso_ms(updated_at_ms) AS updated_at, run_id
FROM predlake_watermarks ORDER BY table_name
