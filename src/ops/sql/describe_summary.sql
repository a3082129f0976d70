-- Rows, first and last time of a table, reading the whole time column.
SELECT count(*)::BIGINT, min(${time})::BIGINT, max(${time})::BIGINT FROM ${table}
