-- Publish (inside the one transaction that also moves the checkpoint and records the run's
-- success): delete the live rows from CUT on (none in an incremental run), replace the live rows
-- the run updated (each UPDATE reads only the slot range of its staged rows), and append the new
-- rows in timestamp order. Parameters: CUT, su_lo, su_hi, pu_lo, pu_hi.
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
    exchange_init_close = s.exchange_init_close,
    exchange_end_close = s.exchange_end_close,
    exchange_move = s.exchange_move,
    trueval_agrees = s.trueval_agrees,
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
