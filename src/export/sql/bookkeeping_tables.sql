-- The lake's bookkeeping tables (names starting with BOOKKEEPING_PREFIX), staging tables
-- (STAGING_PREFIX) aside.
SELECT table_name FROM duckdb_tables()
WHERE database_name = current_database() AND schema_name = 'main'
  AND starts_with(table_name, ${bookkeeping_prefix})
  AND NOT starts_with(table_name, ${staging_prefix})
ORDER BY table_name
