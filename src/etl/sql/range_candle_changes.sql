-- The slot range that the candles stored or corrected since the last publish can decide (an empty
-- range when there are none, or without the candle columns): slot s reads the candles opening at
-- s - 2E and s - E, and no epoch E is longer than a day. Parameters: OHLCV.
SELECT coalesce(min(from_ms) // 1000, 0) AS cc_lo,
       coalesce(max(to_ms) // 1000 + 2 * 86400, -1) AS cc_hi
FROM predlake_candle_changes
WHERE ${OHLCV} = 1;
