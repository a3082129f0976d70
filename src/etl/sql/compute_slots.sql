-- Computes slot rows from raw, as of F: those listed in etl_stage_slot_keys, or (rebuild,
-- ALL_GROUPS = 1) every slot with a prediction in the range. A slot's row holds its predictions
-- with S <= timestamp < F, each as its version as of F (the first one's pair, timeframe and
-- source; count; stake; the first submission's time), its earliest
-- trueval event in that span, its epoch and timeout from the contracts snapshot (else the epoch of
-- its timeframe and the default timeout), and its status at F. Raw tables are read only in the
-- slot range [k_lo, k_hi]; slots of that range that are not keys are aggregated too and dropped by
-- the final join (cheaper than filtering every prediction by key).
-- Parameters: S, F, RUN, ALL_GROUPS, k_lo, k_hi.
INSERT INTO etl_stage_slots BY NAME
WITH agg AS (
  SELECT etl_contract(ID, contract) AS contract, slot,
         count(*) AS n_predictions,
         sum(stake) AS predicted_stake,
         min(first_timestamp) AS first_timestamp,
         max(timestamp) AS last_timestamp,
         arg_min({'pair': pair, 'timeframe': timeframe, 'source': source},
                 {'ts': first_timestamp, 'id': ID}) AS first
  FROM etl_view_submissions
  WHERE timestamp < ${F} AND coalesce(superseded_at >= ${F}, true)
    AND slot BETWEEN ${k_lo} AND ${k_hi}
  GROUP BY ALL
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
  SELECT a.contract || '-' || a.slot AS ID,
         a.contract,
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
  LEFT JOIN pdr_contracts AS c ON c.ID = a.contract
  LEFT JOIN tvs AS t ON t.slot_id = a.contract || '-' || a.slot
)
SELECT r.* EXCLUDE (last_timestamp),
       etl_slot_status(r.trueval_timestamp, r.deadline_timestamp, ${F}) AS status,
       etl_status_timestamp(r.trueval_timestamp, r.deadline_timestamp, ${F}) AS status_timestamp,
       greatest(r.last_timestamp,
                etl_status_timestamp(r.trueval_timestamp, r.deadline_timestamp, ${F}))
         AS last_event_timestamp,
       ${RUN} AS run_id,
       coalesce(k.is_new, true) AS is_new
FROM rows AS r
LEFT JOIN etl_stage_slot_keys AS k ON k.ID = r.ID
WHERE ${ALL_GROUPS} = 1 OR k.ID IS NOT NULL
ORDER BY r.timestamp, r.ID;
