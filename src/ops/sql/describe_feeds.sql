-- The feeds (contracts) with where their metadata came from (NULL in lakes older than that column).
SELECT ID, pair, timeframe, source, ${metadata_from} FROM pdr_contracts ORDER BY pair, timeframe, ID
