-- The merged latest versions (ROWS) of IDs TABLE does not hold, into TABLE.
INSERT INTO ${table} (${columns})
SELECT ${columns} FROM ${rows} WHERE superseded_at IS NULL AND NOT stored ORDER BY timestamp, ID
