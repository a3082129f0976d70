-- Raw tables: append-only copies of source events, one row per entity id (the primary key makes a
-- repeated insert of the same id a no-op through ON CONFLICT, at a cost proportional to the rows inserted).
-- Timestamps are unix milliseconds, slots unix seconds, amounts exact decimals.
CREATE TABLE IF NOT EXISTS pdr_predictions (
  ID VARCHAR PRIMARY KEY,
  contract VARCHAR,
  pair VARCHAR,
  timeframe VARCHAR,
  predvalue BOOLEAN,
  stake DECIMAL(38, 18),
  truevalue BOOLEAN,
  timestamp BIGINT NOT NULL,
  source VARCHAR,
  payout DECIMAL(38, 18),
  slot BIGINT,
  user VARCHAR
);

CREATE TABLE IF NOT EXISTS pdr_truevals (
  ID VARCHAR PRIMARY KEY,
  token VARCHAR,
  timestamp BIGINT NOT NULL,
  truevalue BOOLEAN,
  slot BIGINT,
  revenue DECIMAL(38, 18),
  roundSumStakesUp DECIMAL(38, 18),
  roundSumStakes DECIMAL(38, 18)
);

CREATE TABLE IF NOT EXISTS pdr_payouts (
  ID VARCHAR PRIMARY KEY,
  token VARCHAR,
  user VARCHAR,
  slot BIGINT,
  timestamp BIGINT NOT NULL,
  payout DECIMAL(38, 18),
  predvalue BOOLEAN,
  truevalue BOOLEAN,
  stake DECIMAL(38, 18)
);

CREATE TABLE IF NOT EXISTS pdr_subscriptions (
  ID VARCHAR PRIMARY KEY,
  pair VARCHAR,
  timeframe VARCHAR,
  source VARCHAR,
  tx_id VARCHAR,
  last_price_value DECIMAL(38, 18),
  timestamp BIGINT NOT NULL,
  user VARCHAR
);

-- Slot entities hold their latest state (status and totals change after a slot first appears);
-- timestamp = slot * 1000.
CREATE TABLE IF NOT EXISTS pdr_slots (
  ID VARCHAR PRIMARY KEY,
  timestamp BIGINT NOT NULL,
  slot BIGINT,
  truevalue BOOLEAN,
  roundSumStakesUp DECIMAL(38, 18),
  roundSumStakes DECIMAL(38, 18),
  status VARCHAR
);

-- Feed contracts as last fetched (a snapshot, no watermark): what each feed is and its epoch rules.
CREATE TABLE IF NOT EXISTS pdr_contracts (
  ID VARCHAR PRIMARY KEY,
  pair VARCHAR,
  timeframe VARCHAR,
  source VARCHAR,
  seconds_per_epoch BIGINT,
  trueval_submit_timeout BIGINT
);
