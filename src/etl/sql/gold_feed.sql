-- Recomputes the affected (day, feed) groups from the predictoor groups and the slots as they will
-- be after this run (etl_view_gold_predictoor, etl_view_slots), reading only the days concerned:
-- sums over a feed's predictoors equal sums over its predictions. Metric definitions:
-- docs/etl.md. Parameters: RUN, d_lo, d_hi.
INSERT INTO etl_stage_gold_feed BY NAME
WITH preds AS (
  SELECT g.day,
         g.contract,
         min(g.pair) AS pair,
         min(g.timeframe) AS timeframe,
         min(g.source) AS source,
         count(*) AS predictoors,
         sum(g.predictions) AS predictions,
         sum(g.pending) AS pending,
         sum(g.canceled) AS canceled,
         sum(g.unrevealed) AS unrevealed,
         sum(g.resolved) AS resolved,
         sum(g.correct) AS correct,
         sum(g.stake) AS stake,
         sum(g.payout) AS payout,
         sum(g.profit) AS profit,
         -- NULL when any predictoor's is (one of its stakes is unknown).
         CASE WHEN bool_and(g.settled_stake IS NOT NULL) THEN sum(g.settled_stake) END
           AS settled_stake,
         sum(g.settled_payout) AS settled_payout,
         CASE WHEN bool_and(g.resolved_stake IS NOT NULL) THEN sum(g.resolved_stake) END
           AS resolved_stake,
         CASE WHEN bool_and(g.unrevealed_stake IS NOT NULL) THEN sum(g.unrevealed_stake) END
           AS unrevealed_stake,
         CASE WHEN bool_and(g.refund_pending IS NOT NULL) THEN sum(g.refund_pending) END
           AS refund_pending,
         sum(g.refund_claimed) AS refund_claimed
  FROM etl_view_gold_predictoor AS g
  WHERE g.day BETWEEN DATE '1970-01-01' + CAST(${d_lo} AS INTEGER)
                  AND DATE '1970-01-01' + CAST(${d_hi} AS INTEGER)
    AND EXISTS (
      SELECT 1 FROM etl_stage_gold_feed_keys AS k
      WHERE k.day = g.day AND k.contract IS NOT DISTINCT FROM g.contract)
  GROUP BY g.day, g.contract
),
slots AS (
  SELECT etl_day(s.slot) AS day,
         s.contract,
         count(*) AS slots,
         count(*) FILTER (WHERE s.status = 'canceled') AS slots_canceled,
         sum(s.revenue) FILTER (WHERE s.status = 'paying') AS revenue,
         count(*) FILTER (WHERE s.in_consensus) AS consensus_slots,
         count(*) FILTER (WHERE s.trueval_agrees = false) AS trueval_disagreements,
         count(*) FILTER (
           WHERE s.in_consensus
             AND CASE WHEN s.truevalue
                      THEN s.roundSumStakesUp > s.roundSumStakes - s.roundSumStakesUp
                      ELSE s.roundSumStakesUp < s.roundSumStakes - s.roundSumStakesUp END)
           AS consensus_correct_slots,
         coalesce(sum(s.roundSumStakes) FILTER (WHERE s.in_consensus), 0) AS consensus_stake,
         coalesce(sum(CASE WHEN s.truevalue THEN s.roundSumStakesUp
                           ELSE s.roundSumStakes - s.roundSumStakesUp END)
                    FILTER (WHERE s.in_consensus), 0) AS consensus_correct_stake
  FROM (
    -- The slots the stake-weighted consensus counts: paying, with a trueval and a known, positive
    -- stake (canceled and zero-stake slots are not a consensus).
    SELECT *,
           coalesce(status = 'paying' AND truevalue IS NOT NULL AND roundSumStakes > 0
                    AND roundSumStakesUp IS NOT NULL, false) AS in_consensus
    FROM etl_view_slots
  ) AS s
  WHERE s.slot BETWEEN ${d_lo} * 86400 AND ${d_hi} * 86400 + 86399
    AND EXISTS (
      SELECT 1 FROM etl_stage_gold_feed_keys AS k
      WHERE k.day = etl_day(s.slot) AND k.contract IS NOT DISTINCT FROM s.contract)
  GROUP BY etl_day(s.slot), s.contract
)
SELECT day, contract, p.pair, p.timeframe, p.source,
       coalesce(s.slots, 0) AS slots,
       coalesce(s.slots_canceled, 0) AS slots_canceled,
       coalesce(p.predictoors, 0) AS predictoors,
       coalesce(p.predictions, 0) AS predictions,
       coalesce(p.pending, 0) AS pending,
       coalesce(p.canceled, 0) AS canceled,
       coalesce(p.unrevealed, 0) AS unrevealed,
       coalesce(p.resolved, 0) AS resolved,
       coalesce(p.correct, 0) AS correct,
       CASE WHEN p.resolved > 0 THEN p.correct::DOUBLE / p.resolved END AS accuracy,
       p.stake,
       p.payout,
       p.profit,
       s.revenue,
       -- A feed day without predictoor groups has nothing settled (0), not an unknown.
       CASE WHEN p.predictoors IS NULL THEN 0 ELSE p.settled_stake END AS settled_stake,
       coalesce(p.settled_payout, 0) AS settled_payout,
       CASE WHEN p.predictoors IS NULL THEN 0 ELSE p.settled_payout - p.settled_stake END
         AS cash_pnl,
       CASE WHEN p.predictoors IS NULL THEN 0 ELSE p.resolved_stake END AS resolved_stake,
       CASE WHEN p.predictoors IS NULL THEN 0 ELSE p.unrevealed_stake END AS unrevealed_stake,
       CASE WHEN p.predictoors IS NULL THEN 0 ELSE p.refund_pending END AS refund_pending,
       coalesce(p.refund_claimed, 0) AS refund_claimed,
       coalesce(s.consensus_slots, 0) AS consensus_slots,
       coalesce(s.consensus_correct_slots, 0) AS consensus_correct_slots,
       coalesce(s.consensus_stake, 0) AS consensus_stake,
       coalesce(s.consensus_correct_stake, 0) AS consensus_correct_stake,
       coalesce(s.trueval_disagreements, 0) AS trueval_disagreements,
       ${RUN} AS run_id
FROM preds AS p
FULL JOIN slots AS s USING (day, contract)
ORDER BY day, contract;
