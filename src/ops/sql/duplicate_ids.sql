-- IDs stored more than once in one table (or part of it).
SELECT ${table_name} AS table_name, CAST(ID AS VARCHAR) AS ID, count(*) AS copies FROM ${from} WHERE ${where} GROUP BY ID HAVING count(*) > 1${having}
