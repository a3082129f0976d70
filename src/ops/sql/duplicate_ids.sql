-- IDs stored more than once in one table (or part of it); the full check groups by hashes first (duplicate_ids_hashed), while an incremental one, which reads few rows through a filter on the changed IDs, groups them once.
SELECT ${table_name} AS table_name, CAST(ID AS VARCHAR) AS ID, count(*) AS copies FROM ${from} WHERE ${where} GROUP BY ID HAVING count(*) > 1${having}
