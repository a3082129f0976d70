-- A raw table's rows at or after the cut, deleted.
DELETE FROM ${table} WHERE timestamp >= ${from_ms}
