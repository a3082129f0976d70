-- A table's lowest and highest slot.
SELECT min(CAST(slot AS BIGINT)) AS lo, max(CAST(slot AS BIGINT)) AS hi FROM ${table}
