-- Every column of the lake's tables, for the schema fingerprint.
SELECT table_name, column_index, column_name, data_type, is_nullable, column_default FROM duckdb_columns() WHERE database_name = current_database() AND schema_name = 'main' ORDER BY table_name, column_index
