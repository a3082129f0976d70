-- The columns of a table, in their order.
SELECT column_name FROM duckdb_columns() WHERE database_name = current_database() AND table_name = ${table} ORDER BY column_index
