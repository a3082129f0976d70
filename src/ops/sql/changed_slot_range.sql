-- A table's changed rows: how many, how many without a slot, and their lowest slot.
SELECT count(*), count(*) FILTER (WHERE slot IS NULL), coalesce(min(CAST(slot AS BIGINT)), 0) FROM ${table} WHERE ${changed}
