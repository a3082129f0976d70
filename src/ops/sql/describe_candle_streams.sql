-- Each candle stream's health with its known gaps: how many, and the first.
SELECT s.stream, s.status, s.error, s.failing_since_ms, s.last_ok_ms, count(g.open_ms), min(g.open_ms)
FROM predlake_ohlcv_streams AS s
LEFT JOIN predlake_candle_gaps AS g ON g.stream = s.stream
GROUP BY ALL
ORDER BY 1
