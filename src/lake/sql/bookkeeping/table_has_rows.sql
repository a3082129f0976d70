-- 1 when the table has a row, else 0 (reads at most one).
SELECT count(*) FROM (SELECT 1 FROM ${table} LIMIT 1)
