-- The newest indexed head the lake read, forgotten (its two predlake_meta keys).
DELETE FROM predlake_meta WHERE key IN (${head_block}, ${head_ms})
