-- DuckDB's memory limit for the checks.
SET memory_limit = ${limit}
