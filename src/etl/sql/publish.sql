-- The publish, run inside the one transaction that also moves the checkpoint and records the run's
-- success: delete the live rows from CUT on (none in an incremental run), replace the live rows the
-- run updated (each UPDATE reads only the slot range of its staged rows), append the new rows in
-- timestamp order, and replace the affected gold groups.
-- Parameters: CUT, su_lo, su_hi, pu_lo, pu_hi.
DELETE FROM bronze_pdr_slots WHERE timestamp >= ${CUT};
DELETE FROM bronze_pdr_predictions WHERE timestamp >= ${CUT};

UPDATE bronze_pdr_slots AS l
SET n_predictions = s.n_predictions,
    predicted_stake = s.predicted_stake,
    truevalue = s.truevalue,
    revenue = s.revenue,
    roundSumStakesUp = s.roundSumStakesUp,
    roundSumStakes = s.roundSumStakes,
    trueval_timestamp = s.trueval_timestamp,
    status = s.status,
    status_timestamp = s.status_timestamp,
    last_event_timestamp = s.last_event_timestamp,
    run_id = s.run_id
FROM etl_stage_slots AS s
WHERE NOT s.is_new AND l.ID = s.ID AND l.slot BETWEEN ${su_lo} AND ${su_hi};

UPDATE bronze_pdr_predictions AS l
SET predvalue = s.predvalue,
    truevalue = s.truevalue,
    stake = s.stake,
    revenue = s.revenue,
    payout = s.payout,
    last_event_timestamp = s.last_event_timestamp,
    status = s.status,
    run_id = s.run_id
FROM etl_stage_predictions AS s
WHERE NOT s.is_new AND l.ID = s.ID AND l.slot BETWEEN ${pu_lo} AND ${pu_hi};

INSERT INTO bronze_pdr_slots BY NAME
SELECT * EXCLUDE (is_new) FROM etl_stage_slots WHERE is_new ORDER BY timestamp, ID;
INSERT INTO bronze_pdr_predictions BY NAME
SELECT * EXCLUDE (is_new) FROM etl_stage_predictions WHERE is_new ORDER BY timestamp, ID;

DELETE FROM gold_predictoor_daily AS g
WHERE EXISTS (
  SELECT 1 FROM etl_stage_gold_predictoor_keys AS k
  WHERE k.day = g.day AND k.user IS NOT DISTINCT FROM g.user
    AND k.contract IS NOT DISTINCT FROM g.contract);
INSERT INTO gold_predictoor_daily BY NAME
SELECT * FROM etl_stage_gold_predictoor ORDER BY day, contract, user;

DELETE FROM gold_feed_daily AS g
WHERE EXISTS (
  SELECT 1 FROM etl_stage_gold_feed_keys AS k
  WHERE k.day = g.day AND k.contract IS NOT DISTINCT FROM g.contract);
INSERT INTO gold_feed_daily BY NAME
SELECT * FROM etl_stage_gold_feed ORDER BY day, contract;

DELETE FROM gold_feed_sales_daily
WHERE day IN (SELECT day FROM etl_stage_gold_sales_keys);
INSERT INTO gold_feed_sales_daily BY NAME
SELECT * FROM etl_stage_gold_sales ORDER BY day, contract;
