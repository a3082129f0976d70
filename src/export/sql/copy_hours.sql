-- The rows of TABLE where ROWS (hours of one day, as literal ranges on `timestamp`), written to
-- the folder FOLDER as one folder of Parquet files per predlake_hour=H (the UTC hour of
-- `timestamp`, not written into the files). ROW_GROUP_ROWS rows per row group; file names
-- part-RUN-i (FILE_PATTERN).
COPY (SELECT *, hour(epoch_ms("timestamp")) AS predlake_hour FROM ${table} WHERE ${rows})
  TO ${folder}
  (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (predlake_hour), WRITE_PARTITION_COLUMNS false,
   ROW_GROUP_SIZE ${row_group_rows}, FILENAME_PATTERN ${file_pattern})
