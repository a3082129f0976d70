-- The raw predictions with a time in the window (and a slot range).
SELECT ID, timestamp FROM pdr_predictions WHERE timestamp >= ${from_ms} AND timestamp < ${to_ms} AND ${in_range}
