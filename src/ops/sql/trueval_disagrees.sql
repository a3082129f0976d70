-- The slots whose on-chain trueval disagrees with the exchange's candles.
SELECT ID, pair, timeframe, source, slot, truevalue, exchange_init_close, exchange_end_close, exchange_move FROM bronze_pdr_slots WHERE trueval_agrees = false AND ${changed}
