-- The versions superseded at or after the cut, forgotten.
DELETE FROM ${versions} WHERE superseded_at >= ${from_ms}
