-- The days of TABLE (its day: DAY) holding a row written after the run PREVIOUS_RUN.
SELECT DISTINCT CAST(${day} AS VARCHAR) FROM ${table} WHERE run_id > ${previous_run}
