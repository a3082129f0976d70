-- Per day of TABLE (its day: DAY) among the rows where ROWS: the day (YYYY-MM-DD), its
-- rows, and its signature SIGNATURE (a VARCHAR aggregate). ROWS is made of literal
-- constants on the column the rows are appended by, so that DuckDB's zone maps skip the row groups
-- of other days.
SELECT CAST(${day} AS VARCHAR) AS predlake_day, count(*), ${signature}
FROM ${table}
WHERE ${rows}
GROUP BY ALL
