-- Before the seal locks the configuration: a bounded database, Parquet footers cached.
SET threads = 2;
SET memory_limit = '2GB';
SET parquet_metadata_cache = true;
