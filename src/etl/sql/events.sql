-- Update events for existing slot rows from the window [C, F), reduced to one row per slot:
-- the window's submissions of the slot (count of new predictions, the stake they add or a
-- re-submission changes, latest time), its earliest trueval event,
-- and the live slots still pending whose cancellation deadline falls in the window (a time-driven
-- event with no row of its own), and (OHLCV = 1) the live slots whose exchange outcome may have
-- changed: those whose outcome time slot * 1000 falls in [C, F) with the candle that closes at the
-- slot stored (time-driven), and those before C that read a candle stored or corrected since the
-- last publish (predlake_candle_changes: candles are late data, docs/ohlcv.md). candle_slots.sql
-- computes the outcome. Parameters: C, F, CUT, OHLCV, cc_lo, cc_hi.
INSERT INTO etl_stage_slot_events
WITH preds AS (
  SELECT etl_contract(ID, contract) || '-' || slot AS slot_id, slot,
         count(*) FILTER (WHERE is_first) AS n_predictions,
         sum(CASE WHEN is_first THEN stake ELSE coalesce(stake, 0) - coalesce(prev_stake, 0) END)
           AS predicted_stake,
         max(timestamp) AS max_prediction_timestamp
  FROM etl_view_submissions
  WHERE timestamp >= ${C} AND timestamp < ${F}
  GROUP BY ALL
),
tvs AS (
  SELECT split_part(ID, '-', 1) || '-' || slot AS slot_id, slot,
         arg_min({'truevalue': truevalue, 'revenue': revenue, 'up': roundSumStakesUp,
                  'total': roundSumStakes, 'ts': timestamp},
                 {'ts': timestamp, 'id': ID}) AS t
  FROM pdr_truevals
  WHERE timestamp >= ${C} AND timestamp < ${F}
  GROUP BY ALL
),
deadlines AS (
  SELECT ID AS slot_id, slot
  FROM bronze_pdr_slots
  WHERE status = 'pending' AND deadline_timestamp >= ${C} AND deadline_timestamp < ${F}
    AND timestamp < ${CUT}
),
candles AS (
  SELECT l.ID AS slot_id, l.slot
  FROM bronze_pdr_slots AS l
  WHERE ${OHLCV} = 1 AND l.slot * 1000 >= ${C} AND l.slot * 1000 < ${F} AND l.timestamp < ${CUT}
    AND EXISTS (
      SELECT 1 FROM pdr_ohlcv AS o
      WHERE o.timestamp >= ${C} - 86400000 * 2 AND o.timestamp < ${F}
        AND o.exchange = l.source AND o.pair = l.pair AND o.timeframe = l.timeframe
        AND o.timestamp = (l.slot - l.seconds_per_epoch) * 1000)
  UNION
  SELECT l.ID AS slot_id, l.slot
  FROM bronze_pdr_slots AS l
  JOIN predlake_candle_changes AS x
    ON x.exchange = l.source AND x.pair = l.pair AND x.timeframe = l.timeframe
   AND (l.slot - 2 * l.seconds_per_epoch) * 1000 < x.to_ms
   AND (l.slot - l.seconds_per_epoch) * 1000 >= x.from_ms
  WHERE ${OHLCV} = 1 AND l.slot BETWEEN ${cc_lo} AND ${cc_hi} AND l.slot * 1000 < ${C}
    AND l.timestamp < ${CUT}
)
SELECT slot_id, slot,
       coalesce(preds.n_predictions, 0),
       preds.predicted_stake,
       preds.max_prediction_timestamp,
       tvs.t IS NOT NULL,
       tvs.t.truevalue, tvs.t.revenue, tvs.t.up, tvs.t.total, tvs.t.ts
FROM preds
FULL JOIN tvs USING (slot_id, slot)
FULL JOIN deadlines USING (slot_id, slot)
FULL JOIN candles USING (slot_id, slot);

-- Payout events of the window, one row per prediction (the earliest, should an ID repeat).
INSERT INTO etl_stage_payout_events
SELECT ID, y.slot, y.payout, y.predvalue, y.stake, y.ts
FROM (
  SELECT ID, arg_min({'slot': slot, 'payout': payout, 'predvalue': predvalue, 'stake': stake,
                      'ts': timestamp}, {'ts': timestamp, 'id': ID}) AS y
  FROM pdr_payouts
  WHERE timestamp >= ${C} AND timestamp < ${F}
  GROUP BY ID
);

-- Re-submission events of the window, one row per prediction (its latest version in the window).
INSERT INTO etl_stage_resubmit_events
SELECT ID, r.slot, r.stake, r.ts
FROM (
  SELECT ID, arg_max({'slot': slot, 'stake': stake, 'ts': timestamp}, timestamp) AS r
  FROM etl_view_submissions
  WHERE timestamp >= ${C} AND timestamp < ${F} AND NOT is_first
  GROUP BY ID
);
