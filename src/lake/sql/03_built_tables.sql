-- Built tables: the ETL's output (src/etl, docs/etl.md). They all share the one checkpoint: at
-- checkpoint C (start S) every row is a function of the raw events with S <= timestamp < C and of the
-- contracts snapshot. `timestamp` is the time of the event that created the row, so a rollback to T
-- deletes the rows with timestamp >= T; `last_event_timestamp` is the time of the latest event that
-- changed the row, so the rows with last_event_timestamp >= T are the ones a rollback recomputes.
-- `run_id` is the run that last wrote the row. Amounts are exact decimals; no table has an index,
-- rows are appended in timestamp order so that DuckDB's zone maps keep slot ranges cheap to read.

-- One row per prediction. Late fields (predvalue, truevalue, revenue, payout) are NULL until the
-- payout or trueval event arrives. status is the slot's: pending | paying | canceled.
CREATE TABLE IF NOT EXISTS bronze_pdr_predictions (
  ID VARCHAR,
  slot_id VARCHAR,
  contract VARCHAR,
  slot BIGINT,
  user VARCHAR,
  pair VARCHAR,
  timeframe VARCHAR,
  source VARCHAR,
  predvalue BOOLEAN,
  truevalue BOOLEAN,
  stake DECIMAL(38, 18),
  revenue DECIMAL(38, 18),
  payout DECIMAL(38, 18),
  timestamp BIGINT,
  last_event_timestamp BIGINT,
  status VARCHAR,
  run_id BIGINT
);

-- One row per slot of a feed that has at least one prediction. timestamp = its first prediction;
-- the trueval fields come from the slot's trueval event; deadline_timestamp is when a slot without
-- a trueval counts as canceled; status_timestamp is when the current status took effect.
CREATE TABLE IF NOT EXISTS bronze_pdr_slots (
  ID VARCHAR,
  contract VARCHAR,
  slot BIGINT,
  pair VARCHAR,
  timeframe VARCHAR,
  source VARCHAR,
  seconds_per_epoch BIGINT,
  trueval_submit_timeout BIGINT,
  deadline_timestamp BIGINT,
  n_predictions BIGINT,
  predicted_stake DECIMAL(38, 18),
  truevalue BOOLEAN,
  revenue DECIMAL(38, 18),
  roundSumStakesUp DECIMAL(38, 18),
  roundSumStakes DECIMAL(38, 18),
  trueval_timestamp BIGINT,
  status VARCHAR,
  status_timestamp BIGINT,
  timestamp BIGINT,
  last_event_timestamp BIGINT,
  run_id BIGINT
);

-- The predictoor revenue dashboard, per (day of the slot, predictoor, feed). See docs/etl.md for
-- the metric definitions; a NULL amount is unknown, never 0. The two gold tables below have more
-- columns after run_id, appended to new and old lakes alike from lake::kBuiltColumnsAdded
-- (src/lake/tables.hpp): the honest metrics (settled_stake, settled_payout, cash_pnl,
-- resolved_stake, unrevealed_stake, refund_pending, refund_claimed, and per feed the consensus_*).
CREATE TABLE IF NOT EXISTS gold_predictoor_daily (
  day DATE,
  user VARCHAR,
  contract VARCHAR,
  pair VARCHAR,
  timeframe VARCHAR,
  source VARCHAR,
  predictions BIGINT,
  pending BIGINT,
  canceled BIGINT,
  unrevealed BIGINT,
  resolved BIGINT,
  correct BIGINT,
  accuracy DOUBLE,
  stake DECIMAL(38, 18),
  payout DECIMAL(38, 18),
  profit DECIMAL(38, 18),
  revenue DECIMAL(38, 18),
  -- How many predictions each amount above sums (it is NULL when none is known).
  stake_known BIGINT,
  payout_known BIGINT,
  profit_known BIGINT,
  revenue_known BIGINT,
  run_id BIGINT
);

-- Per (day of the slot, feed).
CREATE TABLE IF NOT EXISTS gold_feed_daily (
  day DATE,
  contract VARCHAR,
  pair VARCHAR,
  timeframe VARCHAR,
  source VARCHAR,
  slots BIGINT,
  slots_canceled BIGINT,
  predictoors BIGINT,
  predictions BIGINT,
  pending BIGINT,
  canceled BIGINT,
  unrevealed BIGINT,
  resolved BIGINT,
  correct BIGINT,
  accuracy DOUBLE,
  stake DECIMAL(38, 18),
  payout DECIMAL(38, 18),
  profit DECIMAL(38, 18),
  revenue DECIMAL(38, 18),
  run_id BIGINT
);

-- Subscriptions sold per (day of the purchase, feed).
CREATE TABLE IF NOT EXISTS gold_feed_sales_daily (
  day DATE,
  contract VARCHAR,
  pair VARCHAR,
  timeframe VARCHAR,
  source VARCHAR,
  subscriptions BIGINT,
  buyers BIGINT,
  sales DECIMAL(38, 18),
  run_id BIGINT
);
