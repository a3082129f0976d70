-- Staging tables left by a run that did not finish (crash, kill, failure) or by this connection's
-- previous run: the lake's own and this connection's TEMP ones. KEEP_PARTS = 1 leaves the lake's
-- staged bronze tables of a rebuild in parts, which its next part resumes from.
-- Parameters: KEEP_PARTS.
SELECT database_name, schema_name, table_name
FROM duckdb_tables()
WHERE (database_name = current_database() OR temporary)
  AND table_name LIKE 'etl\_stage\_%' ESCAPE '\'
  AND NOT (${KEEP_PARTS} = 1 AND NOT temporary
           AND table_name IN ('etl_stage_slots', 'etl_stage_predictions'))
ORDER BY ALL;
