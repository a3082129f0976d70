-- The header's candle streams (docs/ohlcv.md): each stream's status, watermark, error, since when
-- it fails and its known gaps.
SELECT w.table_name, coalesce(s.status, 'not fetched'), w.watermark_ms, s.error,
       s.failing_since_ms,
       (SELECT count(*) FROM predlake_candle_gaps AS g WHERE g.stream = w.table_name)
FROM predlake_watermarks AS w
LEFT JOIN predlake_ohlcv_streams AS s ON s.stream = w.table_name
WHERE w.table_name LIKE 'pdr_ohlcv:%'
ORDER BY 1
