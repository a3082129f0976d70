-- Helpers for the other steps, local to the run's connection. Parameters: DEFAULT_TIMEOUT_S.

-- Seconds of a timeframe such as 5m, 1h, 30s, 1d; NULL when it is not of that form.
CREATE OR REPLACE TEMP MACRO etl_timeframe_s(tf) AS
  TRY_CAST(regexp_extract(tf, '^([0-9]+)[smhd]$', 1) AS BIGINT) *
  CASE right(tf, 1) WHEN 's' THEN 1 WHEN 'm' THEN 60 WHEN 'h' THEN 3600 WHEN 'd' THEN 86400 END;

-- The contract of a prediction: its contract column (the ID's part before the first '-' when that
-- is missing). Truevals, payouts and subscriptions have no such column: theirs is the ID prefix.
CREATE OR REPLACE TEMP MACRO etl_contract(id, contract) AS coalesce(contract, split_part(id, '-', 1));

-- The trueval submit timeout of a contract the contracts snapshot does not know.
CREATE OR REPLACE TEMP MACRO etl_default_timeout_s() AS ${DEFAULT_TIMEOUT_S};

-- The UTC day of a slot (seconds) and of a timestamp (milliseconds).
CREATE OR REPLACE TEMP MACRO etl_day(slot) AS DATE '1970-01-01' + CAST(slot // 86400 AS INTEGER);
CREATE OR REPLACE TEMP MACRO etl_day_ms(ts) AS DATE '1970-01-01' + CAST(ts // 86400000 AS INTEGER);

-- A slot's status as of `as_of` (the checkpoint being built): paying once a trueval event before
-- as_of exists (even one that came after the deadline), canceled when the deadline passed before
-- as_of without one, pending otherwise. trueval_ts is the chosen trueval event's time (< as_of) or
-- NULL. status_timestamp is when that status took effect.
CREATE OR REPLACE TEMP MACRO etl_slot_status(trueval_ts, deadline, as_of) AS
  CASE WHEN trueval_ts IS NOT NULL THEN 'paying'
       WHEN deadline < as_of THEN 'canceled'
       ELSE 'pending' END;
CREATE OR REPLACE TEMP MACRO etl_status_timestamp(trueval_ts, deadline, as_of) AS
  CASE WHEN trueval_ts IS NOT NULL THEN trueval_ts
       WHEN deadline < as_of THEN deadline END;

-- Adds two sums where NULL means "no known value" (as SUM does): NULL only when both are NULL.
CREATE OR REPLACE TEMP MACRO etl_add(a, b) AS
  CASE WHEN a IS NULL THEN b WHEN b IS NULL THEN a ELSE a + b END;
