-- Computes the prediction rows listed in etl_stage_prediction_keys from raw, as of F: the stake of
-- the prediction (else the one its payout reports), payout and predvalue from its payout event
-- with S <= timestamp < F, and truevalue, revenue and status from its slot as it will be after
-- this run (etl_view_slots). A payout or trueval that arrived before the row is applied here, so
-- no waiting update is lost. Rows are staged in timestamp order.
-- Parameters: S, F, RUN, pk_lo, pk_hi.
INSERT INTO etl_stage_predictions BY NAME
WITH keys AS (
  SELECT ID, is_new FROM etl_stage_prediction_keys
),
preds AS (
  SELECT p.*, k.is_new
  FROM pdr_predictions AS p
  JOIN keys AS k ON k.ID = p.ID
  WHERE p.timestamp >= ${S} AND p.timestamp < ${F} AND p.slot BETWEEN ${pk_lo} AND ${pk_hi}
),
pays AS (
  SELECT ID, arg_min({'payout': payout, 'predvalue': predvalue, 'stake': stake, 'ts': timestamp},
                     {'ts': timestamp, 'id': ID}) AS y
  FROM pdr_payouts
  WHERE timestamp >= ${S} AND timestamp < ${F} AND slot BETWEEN ${pk_lo} AND ${pk_hi}
    AND ID IN (SELECT ID FROM keys)
  GROUP BY ID
),
slots AS (
  SELECT ID, truevalue, revenue, status, status_timestamp
  FROM etl_view_slots
  WHERE slot BETWEEN ${pk_lo} AND ${pk_hi}
)
SELECT p.ID,
       split_part(p.ID, '-', 1) || '-' || p.slot AS slot_id,
       split_part(p.ID, '-', 1) AS contract,
       p.slot,
       p.user,
       p.pair,
       p.timeframe,
       p.source,
       y.y.predvalue AS predvalue,
       s.truevalue,
       coalesce(p.stake, y.y.stake) AS stake,
       s.revenue,
       y.y.payout AS payout,
       p.timestamp,
       greatest(p.timestamp, s.status_timestamp, y.y.ts) AS last_event_timestamp,
       coalesce(s.status, 'pending') AS status,
       ${RUN} AS run_id,
       p.is_new
FROM preds AS p
LEFT JOIN pays AS y ON y.ID = p.ID
LEFT JOIN slots AS s ON s.ID = split_part(p.ID, '-', 1) || '-' || p.slot
ORDER BY p.timestamp, p.ID;
