-- The earlier versions of predictions in a slot range from the window's start on (parity_sums).
SELECT ID, timestamp, slot FROM ${versions} WHERE timestamp >= ${from_ms} AND ${in_range}
