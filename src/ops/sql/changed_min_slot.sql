-- The lowest slot of a table's changed rows.
SELECT min(slot) FROM ${table} WHERE ${changed}
