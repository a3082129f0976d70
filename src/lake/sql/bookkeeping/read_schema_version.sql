-- The schema version the lake records (NULL when it records none, or not a number).
SELECT TRY_CAST(value AS BIGINT) FROM predlake_meta WHERE key = 'schema_version'
