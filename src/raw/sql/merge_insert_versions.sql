-- The merged rows ROWS that are superseded and not in VERSIONS yet, into VERSIONS.
INSERT INTO ${versions} (${columns}, superseded_at)
SELECT ${columns}, superseded_at FROM ${rows} AS m
WHERE m.superseded_at IS NOT NULL AND m.src <> 1
  AND NOT EXISTS (SELECT 1 FROM ${versions} AS v WHERE v.ID = m.ID AND v.timestamp = m.timestamp)
