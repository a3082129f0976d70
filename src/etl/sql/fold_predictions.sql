-- Folds the reduced update events into the live predictions they target: one row per slot whose
-- trueval or status changed (for every prediction of the slot, claimed or not) and one row per
-- payout (for its prediction). The join reads bronze_pdr_predictions only in the slot range the
-- events cover. Payouts whose prediction is not live wait in raw: compute_predictions applies them
-- when the row arrives. Parameters: CUT, RUN, pe_lo, pe_hi.
INSERT INTO etl_stage_predictions BY NAME
WITH live AS (
  SELECT *
  FROM bronze_pdr_predictions
  WHERE slot BETWEEN ${pe_lo} AND ${pe_hi} AND timestamp < ${CUT}
),
targets AS (
  SELECT l.*,
         c.slot_id IS NOT NULL AS slot_changed,
         c.truevalue AS new_truevalue, c.revenue AS new_revenue, c.status AS new_status,
         c.status_timestamp AS new_status_timestamp,
         y.ID IS NOT NULL AS paid,
         y.payout AS new_payout, y.predvalue AS new_predvalue, y.stake AS new_stake,
         y.timestamp AS payout_timestamp
  FROM live AS l
  LEFT JOIN etl_stage_slot_changes AS c ON c.slot_id = l.slot_id
  LEFT JOIN etl_stage_payout_events AS y ON y.ID = l.ID
  WHERE c.slot_id IS NOT NULL OR y.ID IS NOT NULL
)
SELECT ID, slot_id, contract, slot, user, pair, timeframe, source,
       CASE WHEN paid THEN new_predvalue ELSE predvalue END AS predvalue,
       CASE WHEN slot_changed THEN new_truevalue ELSE truevalue END AS truevalue,
       CASE WHEN paid THEN coalesce(stake, new_stake) ELSE stake END AS stake,
       CASE WHEN slot_changed THEN new_revenue ELSE revenue END AS revenue,
       CASE WHEN paid THEN new_payout ELSE payout END AS payout,
       timestamp,
       greatest(last_event_timestamp,
                CASE WHEN slot_changed THEN new_status_timestamp END,
                CASE WHEN paid THEN payout_timestamp END) AS last_event_timestamp,
       CASE WHEN slot_changed THEN new_status ELSE status END AS status,
       ${RUN} AS run_id,
       false AS is_new
FROM targets;
