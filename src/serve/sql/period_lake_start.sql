-- The first day of the snapshot's data (unix ms of its midnight, NULL without data): a period never
-- names a start before it.
SELECT CAST(min(d - DATE '1970-01-01') AS BIGINT) * 86400000
FROM (SELECT min(day) AS d FROM serve_fd UNION ALL SELECT min(day) FROM serve_sales)
