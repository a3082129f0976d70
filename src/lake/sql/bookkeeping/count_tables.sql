-- The database's tables: a database without predlake_meta but with tables is not a lake.
SELECT count(*) FROM duckdb_tables() WHERE database_name = current_database()
