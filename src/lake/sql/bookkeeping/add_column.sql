-- A column appended to a table (NULL in its rows).
ALTER TABLE ${table} ADD COLUMN ${column} ${type}
