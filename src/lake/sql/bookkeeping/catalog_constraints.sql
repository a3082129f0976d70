-- Every constraint of the lake's tables, for the schema fingerprint.
SELECT table_name, constraint_index, constraint_type, constraint_text FROM duckdb_constraints() WHERE database_name = current_database() AND schema_name = 'main' ORDER BY ALL
