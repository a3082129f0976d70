-- The times of a raw table's rows at or after a drop's cut (the days it takes rows from).
SELECT timestamp FROM ${table} WHERE timestamp >= ${from_ms}
