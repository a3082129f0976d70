-- The rows of TABLE (where STORED_RANGE holds) replaced by a merged latest version of another
-- time (ROWS).
UPDATE ${table} AS stored SET ${set_columns}
FROM ${rows} AS m
WHERE m.superseded_at IS NULL AND m.stored AND stored.ID = m.ID AND ${stored_range}
  AND stored.timestamp IS DISTINCT FROM m.timestamp
