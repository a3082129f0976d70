-- The tables whose primary key is their ID (DuckDB refuses a copy of one).
SELECT table_name FROM duckdb_constraints() WHERE database_name = current_database() AND constraint_type = 'PRIMARY KEY' AND constraint_column_names = ['ID']
