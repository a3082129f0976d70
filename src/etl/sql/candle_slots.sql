-- The exchange's outcome of every staged slot row, as of F (docs/ohlcv.md): Predictoor's trueval of
-- slot s compares the closes of the candles opening at s - 2E and s - E (E = seconds_per_epoch) of
-- the slot's (source, pair, timeframe); it rose when the later close is higher, and a tie cancels
-- the round. The outcome is an event at s * 1000 (when the later candle closes): known at F when
-- s * 1000 < F and both candles are stored. Candles are late data (they never hold the frontier
-- back): a slot built before its candles arrive gets the outcome from the run that follows their
-- arrival (events.sql reads predlake_candle_changes), so the columns always equal what the stored
-- candles say. Setting the outcome moves last_event_timestamp to s * 1000 at least, so that a
-- rollback to before s recomputes it. trueval_agrees compares it with the on-chain trueval (NULL
-- when either is unknown; a trueval on a tie disagrees). With OHLCV = 0 the columns stay NULL.
-- Parameters: F, OHLCV.
UPDATE etl_stage_slots AS s
SET exchange_init_close = NULL, exchange_end_close = NULL, exchange_move = NULL
WHERE exchange_move IS NOT NULL AND NOT (${OHLCV} = 1 AND s.slot * 1000 < ${F});

UPDATE etl_stage_slots AS s
SET exchange_init_close = c.init_close,
    exchange_end_close = c.end_close,
    exchange_move = CASE WHEN c.end_close > c.init_close THEN 'up'
                         WHEN c.end_close < c.init_close THEN 'down' ELSE 'flat' END,
    last_event_timestamp = greatest(s.last_event_timestamp, s.slot * 1000)
FROM (
  SELECT k.ID, i.close AS init_close, e.close AS end_close
  FROM etl_stage_slots AS k
  JOIN pdr_ohlcv AS i
    ON i.exchange = k.source AND i.pair = k.pair AND i.timeframe = k.timeframe
   AND i.timestamp = (k.slot - 2 * k.seconds_per_epoch) * 1000
  JOIN pdr_ohlcv AS e
    ON e.exchange = k.source AND e.pair = k.pair AND e.timeframe = k.timeframe
   AND e.timestamp = (k.slot - k.seconds_per_epoch) * 1000
  WHERE ${OHLCV} = 1 AND k.slot * 1000 < ${F}
    AND i.timestamp < ${F} AND e.timestamp < ${F}
) AS c
WHERE s.ID = c.ID;

UPDATE etl_stage_slots
SET trueval_agrees = CASE WHEN truevalue IS NULL OR exchange_move IS NULL THEN NULL
                          WHEN exchange_move = 'flat' THEN false
                          ELSE truevalue = (exchange_move = 'up') END;
