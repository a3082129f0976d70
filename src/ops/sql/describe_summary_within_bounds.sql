-- Rows, first and last time of a table whose statistics bound its time column by [lo, hi]: count(*)
-- from the row groups' metadata; min and max read only the row groups whose zone maps reach lo or
-- hi. A NULL min or max means a loose bound (rows deleted since): describe_summary answers then.
SELECT count(*)::BIGINT,
       (SELECT min(${time})::BIGINT FROM ${table} WHERE ${time} <= ${lo}),
       (SELECT max(${time})::BIGINT FROM ${table} WHERE ${time} >= ${hi})
FROM ${table}
