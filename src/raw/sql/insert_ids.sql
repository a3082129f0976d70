-- Stores the rows ROWS (the table's columns, in order) when TABLE can hold none of their IDs:
-- one row per ID (KEY), in ORDER.
INSERT INTO ${table} (${columns})
SELECT ${columns} FROM (SELECT DISTINCT ON (${key}) * FROM (${rows})) AS n
${order}
