-- What a lake's open checks, in one catalog query (the first of a process pays DuckDB's catalog
-- setup, whichever it is): 1 when the database holds predlake_meta (a predlake lake), else 0; and
-- for the schema fingerprint, every table of the lake with the DDL DuckDB renders for it (its
-- columns in order with their types, nullability and defaults, and its constraints), one
-- "name<TAB>ddl<TAB><LF>" per table in name order (NULL when there is none). duckdb_tables()
-- renders every table's DDL whichever of its columns are read, so the count costs the same.
SELECT count(*) FILTER (WHERE table_name = 'predlake_meta') AS has_meta,
       string_agg(table_name || chr(9) || coalesce(sql, '\N') || chr(9) || chr(10), ''
                  ORDER BY table_name) FILTER (WHERE schema_name = 'main') AS catalog
FROM duckdb_tables() WHERE database_name = current_database()
