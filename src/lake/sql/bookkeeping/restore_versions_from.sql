-- A row re-written at or after the cut whose earlier version is before it goes back to that version (set: every column but ID from v).
UPDATE ${table} AS p SET ${set} FROM ${versions} AS v WHERE v.ID = p.ID AND v.timestamp < ${from_ms} AND v.superseded_at >= ${from_ms} AND p.timestamp >= ${from_ms}
