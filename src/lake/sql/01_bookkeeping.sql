-- Bookkeeping: schema version, raw watermarks, the ETL checkpoint, the run ledger.
CREATE TABLE IF NOT EXISTS predlake_meta (
  key VARCHAR PRIMARY KEY,
  value VARCHAR NOT NULL
);

-- One row per raw table once it has been fetched or imported: every source event with
-- start_ms <= timestamp < watermark_ms is in the table.
CREATE TABLE IF NOT EXISTS predlake_watermarks (
  table_name VARCHAR PRIMARY KEY,
  start_ms BIGINT NOT NULL,
  watermark_ms BIGINT NOT NULL,
  run_id BIGINT,
  updated_at_ms BIGINT
);

-- The one checkpoint shared by every built table: built rows reflect exactly the raw events with
-- start_ms <= timestamp < checkpoint_ms.
CREATE TABLE IF NOT EXISTS predlake_checkpoint (
  id INTEGER PRIMARY KEY,
  start_ms BIGINT NOT NULL,
  checkpoint_ms BIGINT NOT NULL,
  run_id BIGINT,
  updated_at_ms BIGINT
);

-- No primary key (lake::kUnkeyedTables): the one writer numbers the runs.
CREATE TABLE IF NOT EXISTS predlake_runs (
  run_id BIGINT NOT NULL,
  command VARCHAR NOT NULL,
  status VARCHAR NOT NULL,          -- running | succeeded | failed | aborted
  started_at_ms BIGINT NOT NULL,
  ended_at_ms BIGINT,
  window_start_ms BIGINT,
  window_end_ms BIGINT,
  checkpoint_before_ms BIGINT,
  checkpoint_after_ms BIGINT,
  watermarks_before VARCHAR,        -- JSON object: table -> watermark ms
  watermarks_after VARCHAR,
  error VARCHAR,
  pid BIGINT,
  detail VARCHAR                    -- JSON object with command-specific facts
);

-- Rows read and written per table by each run.
CREATE TABLE IF NOT EXISTS predlake_run_tables (
  run_id BIGINT NOT NULL,
  table_name VARCHAR NOT NULL,
  rows_in BIGINT NOT NULL,
  rows_out BIGINT NOT NULL,
  rows_updated BIGINT NOT NULL DEFAULT 0,
  rows_deleted BIGINT NOT NULL DEFAULT 0
);

-- Update events of the processed window [start, checkpoint) that wait for a row not built (payouts
-- of a prediction, truevals of a slot), maintained by every ETL publish in its transaction so that
-- `describe` reads the count instead of joining raw against the built tables (docs/etl.md,
-- "Waiting updates"). Valid while predlake_meta's etl_waiting_for names the checkpoint's
-- start_ms:checkpoint_ms:run_id; otherwise readers compute the set from raw.
CREATE TABLE IF NOT EXISTS predlake_waiting (
  table_name VARCHAR NOT NULL,      -- pdr_payouts | pdr_truevals
  ID VARCHAR NOT NULL,              -- the event's raw ID
  target VARCHAR NOT NULL,          -- the ID of the built row it waits for
  slot BIGINT,
  timestamp BIGINT NOT NULL
);

-- The days (UTC, of `timestamp`) of the raw tables whose stored rows change in place
-- (pdr_predictions: a re-submission replaces a row, `raw drop` restores one; pdr_slots: upserted)
-- that a write may have changed, each with the sequence number of the last such write (every
-- write numbers its days above all earlier ones). Written by the raw store and `raw drop` in the
-- transaction that changes the rows (lake::RecordWrittenDaysSql); an export rewrites such a day
-- only when its number is above what its previous snapshot saw (docs/export.md).
CREATE TABLE IF NOT EXISTS predlake_raw_days (
  table_name VARCHAR NOT NULL,
  day DATE NOT NULL,
  write_seq BIGINT NOT NULL,
  PRIMARY KEY (table_name, day)
);

-- Candles stored or corrected since the last ETL publish that consumed them: one row per write and
-- stream, [from_ms, to_ms) of the candles' open times. Candles are late data for a slot (an
-- exchange that fails never holds the ETL back), so an `etl update` recomputes the exchange columns
-- of the built slots these candles decide and deletes the rows in its publish transaction; a
-- rebuild deletes them too. Written in the candle write's transaction (lake::RecordCandleChangesSql).
CREATE TABLE IF NOT EXISTS predlake_candle_changes (
  exchange VARCHAR NOT NULL,
  pair VARCHAR NOT NULL,
  timeframe VARCHAR NOT NULL,
  from_ms BIGINT NOT NULL,
  to_ms BIGINT NOT NULL
);

-- The health of each candle stream (pdr_ohlcv:<exchange>:<pair>:<timeframe>), as its last fetch
-- left it: `ok`, `failing` (the last fetch failed; retried every run) or `set_aside` (the exchange
-- cannot serve it: a pair it does not list, a name that is not a pair; retried after a day). A
-- failing stream never stops the subgraph tables (docs/ohlcv.md).
CREATE TABLE IF NOT EXISTS predlake_ohlcv_streams (
  stream VARCHAR PRIMARY KEY,
  status VARCHAR NOT NULL,
  error VARCHAR,
  failing_since_ms BIGINT,
  last_ok_ms BIGINT,
  updated_at_ms BIGINT NOT NULL,
  run_id BIGINT
);

-- Candles the exchange never served although their stream goes on after them: a stream's watermark
-- stops at a missing candle, which every run asks for again, until the candle has been closed for
-- lake_ss.ohlcv_gap_after by the exchange's clock; then it is recorded here as a known gap and the
-- watermark moves past it (docs/ohlcv.md).
CREATE TABLE IF NOT EXISTS predlake_candle_gaps (
  stream VARCHAR NOT NULL,
  open_ms BIGINT NOT NULL,
  recorded_at_ms BIGINT NOT NULL,
  run_id BIGINT,
  PRIMARY KEY (stream, open_ms)
);
