-- /metrics: the feeds predictoor_ss.my_addresses ($1, comma-separated, lower case) predicted on in
-- the 7 days before the snapshot's checkpoint $2 (unix ms), each with its newest trueval's time
-- (bronze_pdr_slots.trueval_timestamp, ms; NULL when the feed has none).
WITH mine AS (
  SELECT contract, min(pair) AS pair, min(timeframe) AS timeframe FROM serve_pd
  WHERE list_contains(string_split($1, ','), user)
    AND day >= serve_day(($2 - 7 * 86400000) // 1000) AND predictions > 0
  GROUP BY contract
)
SELECT mine.contract, mine.pair, mine.timeframe,
       (SELECT max(trueval_timestamp) FROM serve_slots AS s WHERE s.contract = mine.contract)
FROM mine ORDER BY mine.contract
