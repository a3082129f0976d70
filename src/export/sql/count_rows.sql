-- The rows of TABLE where ROWS.
SELECT count(*) FROM ${table} WHERE ${rows}
