-- What the lake records of its schema, one row: the schema version (NULL when it records none, or
-- not a number) and the fingerprint (key FINGERPRINT_KEY) of the last full schema check (NULL: never checked).
SELECT TRY_CAST(max(value) FILTER (WHERE key = 'schema_version') AS BIGINT) AS version,
       max(value) FILTER (WHERE key = ${fingerprint_key}) AS fingerprint
FROM predlake_meta WHERE key IN ('schema_version', ${fingerprint_key})
