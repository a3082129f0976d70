-- A built table's rows without a pair or timeframe.
SELECT ${table_name} AS table_name, ${contract} AS contract, ${id} AS ID, pair, timeframe FROM ${table} WHERE (pair IS NULL OR timeframe IS NULL)${and_changed}
