-- The IDs with a submission in the window (the current row or an earlier version).
ID IN (SELECT ID FROM pdr_predictions WHERE timestamp >= ${from_ms} AND timestamp < ${to_ms} AND ${in_range} UNION SELECT ID FROM ${versions} WHERE timestamp >= ${from_ms} AND timestamp < ${to_ms} AND ${in_range})
