-- A predlake_meta value as a number (NULL when absent or not a number).
SELECT TRY_CAST(value AS BIGINT) FROM predlake_meta WHERE key = ${key}
