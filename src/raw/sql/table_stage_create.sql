-- A TEMP table STAGE with the columns of the lake table TABLE, made on first use.
CREATE TEMP TABLE IF NOT EXISTS ${stage} AS SELECT * FROM ${table} LIMIT 0
