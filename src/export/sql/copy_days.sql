-- The rows of TABLE where ROWS, written to the folder FOLDER as one folder of Parquet files
-- per day=YYYY-MM-DD (DAY_COLUMN: the day's column, added when the table has none of its own).
-- ROW_GROUP_ROWS rows per row group; file names part-RUN-i (FILE_PATTERN).
COPY (SELECT * ${day_column} FROM ${table} WHERE ${rows}) TO ${folder}
  (FORMAT parquet, COMPRESSION zstd, PARTITION_BY ("day"), WRITE_PARTITION_COLUMNS ${own_day},
   ROW_GROUP_SIZE ${row_group_rows}, FILENAME_PATTERN ${file_pattern})
