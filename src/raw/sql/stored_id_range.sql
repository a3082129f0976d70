-- Where TABLE can hold a stored copy of an ID among the rows ROWS: their number, how many of them
-- and of the table's rows lack the column COL (DuckDB skips the row groups whose statistics say
-- they hold no NULL there), and the least and greatest value of COL among them.
SELECT count(*),
       count(*) FILTER (WHERE ${col} IS NULL)
         + (SELECT count(*) FROM ${table} WHERE ${col} IS NULL),
       coalesce(min(${col}), 0), coalesce(max(${col}), 0)
FROM (${rows})
