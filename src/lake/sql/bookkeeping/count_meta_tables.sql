-- 1 when the database holds predlake_meta (a predlake lake), else 0.
SELECT count(*) FROM duckdb_tables() WHERE database_name = current_database() AND table_name = 'predlake_meta'
