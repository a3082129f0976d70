-- The bronze predictions with a time in the window (and a slot range).
SELECT ID, timestamp FROM ${table} WHERE timestamp >= ${from_ms} AND timestamp < ${to_ms} AND ${in_range}
