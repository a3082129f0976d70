-- The waiting events from predlake_waiting, in the shape of waiting.sql.
SELECT n.table_name, count(w.ID) AS events, min(w.timestamp) AS oldest_timestamp
FROM (VALUES ('pdr_payouts', 1), ('pdr_truevals', 2)) AS n(table_name, position)
LEFT JOIN predlake_waiting AS w USING (table_name)
GROUP BY n.table_name, n.position
ORDER BY n.position;
