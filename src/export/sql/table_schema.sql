-- The columns of the lake's table TABLE_NAME (a string literal), in order: name and type.
SELECT column_name, data_type
FROM information_schema.columns
WHERE table_schema = 'main' AND table_name = ${table_name}
ORDER BY ordinal_position
