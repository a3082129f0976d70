-- Stores the rows ROWS (the table's columns, in order) whose ID (KEY) TABLE does not hold where
-- STORED_RANGE holds (TABLE aliased `stored`): one row per ID, in ORDER.
INSERT INTO ${table} (${columns})
SELECT ${columns} FROM (SELECT DISTINCT ON (${key}) * FROM (${rows})) AS n
WHERE NOT EXISTS (SELECT 1 FROM ${table} AS stored
                  WHERE stored.${key} = n.${key} AND ${stored_range})
${order}
