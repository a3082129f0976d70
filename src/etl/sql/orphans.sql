-- Staging tables left by a run that did not finish (crash, kill, failure) or by this connection's
-- previous run: the lake's own and this connection's TEMP ones.
SELECT database_name, schema_name, table_name
FROM duckdb_tables()
WHERE (database_name = current_database() OR temporary)
  AND table_name LIKE 'etl\_stage\_%' ESCAPE '\'
ORDER BY ALL;
