-- A table's rows.
SELECT count(*) FROM ${table}
