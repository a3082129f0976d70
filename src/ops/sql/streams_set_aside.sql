-- The candle streams the exchange cannot serve.
SELECT 'candle stream' AS kind, stream AS name, error AS why FROM predlake_ohlcv_streams WHERE status = 'set_aside'
