-- Computes the prediction rows of etl_source_predictions from raw, as of F: the stake of the
-- prediction's version as of F (else the one its payout reports), its first submission's time as
-- timestamp and its latest submission's among the events of last_event_timestamp, payout and predvalue from its payout event with
-- S <= timestamp < F (one per prediction: the raw ID is unique), and truevalue, revenue and status
-- from its slot as it will be after this run (etl_view_slots). A payout or trueval that arrived
-- before the row is applied here, so no waiting update is lost. Runs once per pass (the pipeline's
-- Passes): the predictions whose version as of F has PA <= timestamp < PB, staged in timestamp
-- order, the passes in order. Parameters: S, F, RUN, PA, PB, pk_lo, pk_hi.
INSERT INTO etl_stage_predictions BY NAME
WITH pays AS (
  SELECT ID, payout, predvalue, stake, timestamp
  FROM pdr_payouts
  WHERE timestamp >= ${S} AND timestamp < ${F} AND slot BETWEEN ${pk_lo} AND ${pk_hi}
),
slots AS (
  SELECT ID, truevalue, revenue, status, status_timestamp
  FROM etl_view_slots
  WHERE slot BETWEEN ${pk_lo} AND ${pk_hi}
)
SELECT p.ID,
       etl_contract(p.ID, p.contract) || '-' || p.slot AS slot_id,
       etl_contract(p.ID, p.contract) AS contract,
       p.slot,
       p.user,
       p.pair,
       p.timeframe,
       p.source,
       y.predvalue,
       s.truevalue,
       coalesce(p.stake, y.stake) AS stake,
       s.revenue,
       y.payout,
       p.first_timestamp AS timestamp,
       greatest(p.timestamp, s.status_timestamp, y.timestamp) AS last_event_timestamp,
       coalesce(s.status, 'pending') AS status,
       ${RUN} AS run_id,
       p.is_new
FROM etl_source_predictions AS p
LEFT JOIN pays AS y ON y.ID = p.ID
LEFT JOIN slots AS s ON s.ID = etl_contract(p.ID, p.contract) || '-' || p.slot
WHERE p.timestamp >= ${PA} AND p.timestamp < ${PB}
ORDER BY p.first_timestamp, p.ID;
