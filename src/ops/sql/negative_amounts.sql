-- A raw table's rows with a negative amount in one column.
SELECT ${table_name} AS table_name, ID, ${column_name} AS column_name, CAST(${column} AS VARCHAR) AS value, timestamp FROM ${table} WHERE ${column} < 0 AND ${changed}
