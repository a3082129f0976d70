-- The days the writes of TABLE_NAME (a string literal) numbered above WRITE_SEQ recorded in
-- RAW_DAYS (lake::kRawDaysTable).
SELECT CAST(day AS VARCHAR) FROM ${raw_days}
WHERE table_name = ${table_name} AND write_seq > ${write_seq}
ORDER BY day
