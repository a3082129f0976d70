-- Every table of the lake with the DDL DuckDB renders for it (its columns in order with their
-- types, nullability and defaults, and its constraints), for the schema fingerprint: one catalog
-- query, about a fifth of the CPU of duckdb_columns() and duckdb_constraints() on the lake's 40
-- tables (docs/scale.md).
SELECT table_name, sql FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main' ORDER BY table_name
