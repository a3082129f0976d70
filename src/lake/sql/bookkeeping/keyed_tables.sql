-- The tables with a primary key (a schema-1 lake's kUnkeyedTables still have one).
SELECT DISTINCT table_name FROM duckdb_constraints() WHERE database_name = current_database() AND constraint_type = 'PRIMARY KEY'
