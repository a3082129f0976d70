-- Every table's columns (to append the ones a lake made before them lacks).
SELECT table_name, column_name FROM duckdb_columns() WHERE database_name = current_database() AND schema_name = 'main'
