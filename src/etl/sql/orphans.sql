-- Staging tables left by a run that did not finish (crash, kill, failure during cleanup).
SELECT table_name
FROM duckdb_tables()
WHERE database_name = current_database() AND NOT temporary AND table_name LIKE 'etl\_stage\_%' ESCAPE '\'
ORDER BY table_name;
