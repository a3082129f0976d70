-- The snapshot's table TABLE as a view over its Parquet files FILES (string literals), with
-- the columns COLUMNS: the lake's empty table of that name is dropped first.
DROP TABLE IF EXISTS ${table};
CREATE VIEW ${table} AS
SELECT ${columns} FROM read_parquet([${files}], hive_partitioning = false)
