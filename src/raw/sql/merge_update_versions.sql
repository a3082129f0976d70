-- The superseded_at of the versions in VERSIONS that the merged rows ROWS supersede anew.
UPDATE ${versions} AS v SET superseded_at = m.superseded_at
FROM ${rows} AS m
WHERE m.ID = v.ID AND m.timestamp = v.timestamp AND m.superseded_at IS NOT NULL
  AND m.superseded_at IS DISTINCT FROM v.superseded_at
