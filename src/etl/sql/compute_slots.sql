-- Computes the slot rows listed in etl_stage_slot_keys from raw, as of F: the slot's predictions
-- with S <= timestamp < F (first one, count, stake), its earliest trueval event in that span, its
-- epoch and timeout from the contracts snapshot (else the epoch from the timeframe and the default
-- timeout), and the status at F. Raw tables are read only in the keys' slot range.
-- Parameters: S, F, RUN, k_lo, k_hi.
INSERT INTO etl_stage_slots BY NAME
WITH keys AS (
  SELECT ID, is_new FROM etl_stage_slot_keys
),
preds AS (
  SELECT split_part(p.ID, '-', 1) || '-' || p.slot AS slot_id, p.*
  FROM pdr_predictions AS p
  WHERE p.timestamp >= ${S} AND p.timestamp < ${F} AND p.slot BETWEEN ${k_lo} AND ${k_hi}
),
agg AS (
  SELECT slot_id, any_value(slot) AS slot, count(*) AS n_predictions,
         sum(stake) AS predicted_stake, min(timestamp) AS first_timestamp,
         max(timestamp) AS last_timestamp,
         arg_min({'pair': pair, 'timeframe': timeframe, 'source': source},
                 {'ts': timestamp, 'id': ID}) AS first
  FROM preds
  WHERE slot_id IN (SELECT ID FROM keys)
  GROUP BY slot_id
),
tvs AS (
  SELECT split_part(ID, '-', 1) || '-' || slot AS slot_id,
         arg_min({'truevalue': truevalue, 'revenue': revenue, 'up': roundSumStakesUp,
                  'total': roundSumStakes, 'ts': timestamp},
                 {'ts': timestamp, 'id': ID}) AS t
  FROM pdr_truevals
  WHERE timestamp >= ${S} AND timestamp < ${F} AND slot BETWEEN ${k_lo} AND ${k_hi}
  GROUP BY slot_id
),
rows AS (
  SELECT a.slot_id AS ID,
         split_part(a.slot_id, '-', 1) AS contract,
         a.slot,
         a.first.pair AS pair,
         a.first.timeframe AS timeframe,
         a.first.source AS source,
         coalesce(c.seconds_per_epoch, etl_timeframe_s(a.first.timeframe)) AS seconds_per_epoch,
         coalesce(c.trueval_submit_timeout, etl_default_timeout_s()) AS trueval_submit_timeout,
         -- Spelled out: a lateral alias would lose to pdr_contracts' column of the same name.
         (a.slot + coalesce(c.seconds_per_epoch, etl_timeframe_s(a.first.timeframe)) +
          coalesce(c.trueval_submit_timeout, etl_default_timeout_s())) * 1000 AS deadline_timestamp,
         a.n_predictions,
         a.predicted_stake,
         t.t.truevalue AS truevalue,
         t.t.revenue AS revenue,
         t.t.up AS roundSumStakesUp,
         t.t.total AS roundSumStakes,
         t.t.ts AS trueval_timestamp,
         a.first_timestamp AS timestamp,
         a.last_timestamp
  FROM agg AS a
  LEFT JOIN tvs AS t ON t.slot_id = a.slot_id
  LEFT JOIN pdr_contracts AS c ON c.ID = split_part(a.slot_id, '-', 1)
)
SELECT r.* EXCLUDE (last_timestamp),
       etl_slot_status(r.trueval_timestamp, r.deadline_timestamp, ${F}) AS status,
       etl_status_timestamp(r.trueval_timestamp, r.deadline_timestamp, ${F}) AS status_timestamp,
       greatest(r.last_timestamp,
                etl_status_timestamp(r.trueval_timestamp, r.deadline_timestamp, ${F}))
         AS last_event_timestamp,
       ${RUN} AS run_id,
       k.is_new
FROM rows AS r
JOIN keys AS k ON k.ID = r.ID
ORDER BY r.timestamp, r.ID;
