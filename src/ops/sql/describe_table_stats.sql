-- The statistics DuckDB keeps for a table's time column (its zone maps merged), as text.
SELECT stats(${time}) FROM ${table} LIMIT 1
