-- The number of the last write recorded in RAW_DAYS (lake::kRawDaysTable); 0 when none.
SELECT coalesce(max(write_seq), 0) FROM ${raw_days}
