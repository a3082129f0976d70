-- The rows of TABLE where ROWS, written to the Parquet file FILE.
COPY (SELECT * FROM ${table} WHERE ${rows}) TO ${file} (FORMAT parquet, COMPRESSION zstd)
