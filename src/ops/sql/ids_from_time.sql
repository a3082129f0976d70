-- A table's IDs from a time on, and those without a time, each part with its filter in the scan.
(SELECT ID, timestamp FROM ${table} WHERE timestamp >= ${lo} UNION ALL SELECT ID, timestamp FROM ${table} WHERE timestamp IS NULL)
