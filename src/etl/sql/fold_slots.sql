-- Folds the reduced slot events into the live slot rows they target (a 1:1 join that reads only
-- the slot range the events cover). The result equals computing the row from raw as of F: counts
-- and stake add up, the earliest trueval wins (a row that has one keeps it), and the status is
-- re-evaluated at F. Events whose slot has no live row are left to compute_slots.
-- Parameters: F, CUT, RUN, ev_lo, ev_hi.
INSERT INTO etl_stage_slots BY NAME
WITH folded AS (
  SELECT l.* EXCLUDE (n_predictions, predicted_stake, truevalue, revenue, roundSumStakesUp,
                      roundSumStakes, trueval_timestamp, status, status_timestamp,
                      last_event_timestamp, run_id),
         l.n_predictions + e.n_predictions AS n_predictions,
         etl_add(l.predicted_stake, e.predicted_stake) AS predicted_stake,
         l.trueval_timestamp IS NULL AND e.has_trueval AS take,
         CASE WHEN take THEN e.truevalue ELSE l.truevalue END AS truevalue,
         CASE WHEN take THEN e.revenue ELSE l.revenue END AS revenue,
         CASE WHEN take THEN e.roundSumStakesUp ELSE l.roundSumStakesUp END AS roundSumStakesUp,
         CASE WHEN take THEN e.roundSumStakes ELSE l.roundSumStakes END AS roundSumStakes,
         CASE WHEN take THEN e.trueval_timestamp ELSE l.trueval_timestamp END AS trueval_timestamp,
         greatest(l.last_event_timestamp, e.max_prediction_timestamp) AS events_timestamp
  FROM bronze_pdr_slots AS l
  JOIN etl_stage_slot_events AS e ON l.ID = e.slot_id
  WHERE l.slot BETWEEN ${ev_lo} AND ${ev_hi} AND l.timestamp < ${CUT}
)
SELECT * EXCLUDE (take, events_timestamp),
       etl_slot_status(trueval_timestamp, deadline_timestamp, ${F}) AS status,
       etl_status_timestamp(trueval_timestamp, deadline_timestamp, ${F}) AS status_timestamp,
       greatest(events_timestamp,
                etl_status_timestamp(trueval_timestamp, deadline_timestamp, ${F}))
         AS last_event_timestamp,
       ${RUN} AS run_id,
       false AS is_new
FROM folded;
