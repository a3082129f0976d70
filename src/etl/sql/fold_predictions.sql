-- Folds the reduced update events into the live predictions they target: one row per slot whose
-- trueval or status changed (for every prediction of the slot, claimed or not), one row per
-- payout (for its prediction) and one per re-submitted prediction (its new stake). The live rows are read once, only in the slot range the events
-- cover, and kept in etl_stage_replaced (the gold delta subtracts them). Payouts whose prediction
-- is not live wait in raw: compute_predictions applies them when the row arrives.
-- Parameters: CUT, RUN, pe_lo, pe_hi.
INSERT INTO etl_stage_replaced
SELECT *
FROM bronze_pdr_predictions AS l
WHERE l.slot BETWEEN ${pe_lo} AND ${pe_hi} AND l.timestamp < ${CUT}
  AND (l.slot_id IN (SELECT slot_id FROM etl_stage_slot_changes)
       OR l.ID IN (SELECT ID FROM etl_stage_payout_events)
       OR l.ID IN (SELECT ID FROM etl_stage_resubmit_events));

INSERT INTO etl_stage_predictions BY NAME
WITH targets AS (
  SELECT l.*,
         c.slot_id IS NOT NULL AS slot_changed,
         c.truevalue AS new_truevalue, c.revenue AS new_revenue, c.status AS new_status,
         c.status_timestamp AS new_status_timestamp,
         y.ID IS NOT NULL AS paid,
         y.payout AS new_payout, y.predvalue AS new_predvalue, y.stake AS new_stake,
         y.timestamp AS payout_timestamp,
         r.ID IS NOT NULL AS resubmitted,
         r.stake AS resubmit_stake, r.timestamp AS resubmit_timestamp
  FROM etl_stage_replaced AS l
  LEFT JOIN etl_stage_slot_changes AS c ON c.slot_id = l.slot_id
  LEFT JOIN etl_stage_payout_events AS y ON y.ID = l.ID
  LEFT JOIN etl_stage_resubmit_events AS r ON r.ID = l.ID
  WHERE c.slot_id IS NOT NULL OR y.ID IS NOT NULL OR r.ID IS NOT NULL
)
SELECT ID, slot_id, contract, slot, user, pair, timeframe, source,
       CASE WHEN paid THEN new_predvalue ELSE predvalue END AS predvalue,
       CASE WHEN slot_changed THEN new_truevalue ELSE truevalue END AS truevalue,
       coalesce(CASE WHEN resubmitted THEN resubmit_stake ELSE stake END,
                CASE WHEN paid THEN new_stake END) AS stake,
       CASE WHEN slot_changed THEN new_revenue ELSE revenue END AS revenue,
       CASE WHEN paid THEN new_payout ELSE payout END AS payout,
       timestamp,
       greatest(last_event_timestamp,
                CASE WHEN slot_changed THEN new_status_timestamp END,
                CASE WHEN paid THEN payout_timestamp END,
                CASE WHEN resubmitted THEN resubmit_timestamp END) AS last_event_timestamp,
       CASE WHEN slot_changed THEN new_status ELSE status END AS status,
       ${RUN} AS run_id,
       false AS is_new
FROM targets;
