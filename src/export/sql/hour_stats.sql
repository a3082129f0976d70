-- Per UTC hour (0-23) of `timestamp` among the rows of TABLE where ROWS (one day's, as literal
-- ranges on `timestamp`, so that DuckDB's zone maps skip the other days): the hour, its rows and
-- its signature SIGNATURE (a VARCHAR aggregate).
SELECT CAST(hour(epoch_ms("timestamp")) AS BIGINT) AS predlake_hour, count(*), ${signature}
FROM ${table}
WHERE ${rows}
GROUP BY ALL
