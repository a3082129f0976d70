-- Search: the feeds whose contract holds $1 (lower-case hex without 0x; NULL: none) or whose pair
-- holds $2 (lower case, "-" read as "/"; NULL: none), from pdr_contracts and the feeds with
-- predictions. The first 50 by pair, timeframe and contract; total: the count of every match.
WITH k AS (
  SELECT ID AS contract, pair, timeframe, source FROM pdr_contracts
  UNION SELECT contract, min(pair), min(timeframe), min(source) FROM serve_fd
        WHERE contract NOT IN (SELECT ID FROM pdr_contracts) GROUP BY contract),
m AS (
  SELECT contract, min(pair) AS pair, min(timeframe) AS timeframe, min(source) AS source FROM k
  WHERE ($1 IS NOT NULL AND contains(lower(contract), $1))
     OR ($2 IS NOT NULL AND contains(lower(replace(pair, '-', '/')), $2))
  GROUP BY contract)
SELECT 'feed' AS match, contract, pair, timeframe, source,
       CAST(count(*) OVER () AS BIGINT) AS total
FROM m ORDER BY pair, timeframe, contract LIMIT 50
