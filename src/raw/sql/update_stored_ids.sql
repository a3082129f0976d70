-- Sets the rows of TABLE (where STORED_RANGE holds; aliased `stored`) whose ID (KEY) is among the
-- rows ROWS and whose values differ (CHANGED) to those values (SET_COLUMNS), one row per ID.
UPDATE ${table} AS stored SET ${set_columns}
FROM (SELECT DISTINCT ON (${key}) * FROM (${rows})) AS n
WHERE stored.${key} = n.${key} AND ${stored_range} AND (${changed})
