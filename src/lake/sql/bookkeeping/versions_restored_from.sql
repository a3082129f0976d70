-- The times of the earlier versions a drop makes current again.
SELECT timestamp FROM ${versions} WHERE timestamp < ${from_ms} AND superseded_at >= ${from_ms}
