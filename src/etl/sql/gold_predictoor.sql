-- The new rows of the changed (day, predictoor, feed) groups: the live row plus the delta. A sum is
-- NULL while none of its amounts is known (its *_known count is 0); an honest-metric stake sum is
-- NULL while any of its stakes is unknown (its *_unknown count is not 0), its *_known_sum being
-- what the deltas add to; groups left without predictions are only deleted. Metric definitions:
-- docs/etl.md. Parameters: RUN, gd_lo, gd_hi.
INSERT INTO etl_stage_gold_predictoor BY NAME
WITH merged AS (
  SELECT d.day, d.user, d.contract,
         coalesce(g.pair, d.pair) AS pair,
         coalesce(g.timeframe, d.timeframe) AS timeframe,
         coalesce(g.source, d.source) AS source,
         coalesce(g.predictions, 0) + d.predictions AS predictions,
         coalesce(g.pending, 0) + d.pending AS pending,
         coalesce(g.canceled, 0) + d.canceled AS canceled,
         coalesce(g.unrevealed, 0) + d.unrevealed AS unrevealed,
         coalesce(g.resolved, 0) + d.resolved AS resolved,
         coalesce(g.correct, 0) + d.correct AS correct,
         coalesce(g.stake, 0) + coalesce(d.stake, 0) AS stake,
         coalesce(g.stake_known, 0) + d.stake_known AS stake_known,
         coalesce(g.payout, 0) + coalesce(d.payout, 0) AS payout,
         coalesce(g.payout_known, 0) + d.payout_known AS payout_known,
         coalesce(g.profit, 0) + coalesce(d.profit, 0) AS profit,
         coalesce(g.profit_known, 0) + d.profit_known AS profit_known,
         coalesce(g.revenue, 0) + coalesce(d.revenue, 0) AS revenue,
         coalesce(g.revenue_known, 0) + d.revenue_known AS revenue_known,
         coalesce(g.settled_payout, 0) + d.settled_payout AS settled_payout,
         coalesce(g.refund_claimed, 0) + d.refund_claimed AS refund_claimed,
         coalesce(g.settled_stake_unknown, 0) + d.settled_stake_unknown AS settled_stake_unknown,
         coalesce(g.settled_stake_known_sum, 0) + d.settled_stake_known_sum
           AS settled_stake_known_sum,
         coalesce(g.resolved_stake_unknown, 0) + d.resolved_stake_unknown AS resolved_stake_unknown,
         coalesce(g.resolved_stake_known_sum, 0) + d.resolved_stake_known_sum
           AS resolved_stake_known_sum,
         coalesce(g.unrevealed_stake_unknown, 0) + d.unrevealed_stake_unknown
           AS unrevealed_stake_unknown,
         coalesce(g.unrevealed_stake_known_sum, 0) + d.unrevealed_stake_known_sum
           AS unrevealed_stake_known_sum,
         coalesce(g.refund_pending_unknown, 0) + d.refund_pending_unknown AS refund_pending_unknown,
         coalesce(g.refund_pending_known_sum, 0) + d.refund_pending_known_sum
           AS refund_pending_known_sum
  FROM etl_stage_gold_predictoor_delta AS d
  LEFT JOIN (
    SELECT * FROM gold_predictoor_daily
    WHERE day BETWEEN DATE '1970-01-01' + CAST(${gd_lo} AS INTEGER)
                  AND DATE '1970-01-01' + CAST(${gd_hi} AS INTEGER)
  ) AS g
    ON g.day = d.day AND g.user IS NOT DISTINCT FROM d.user
   AND g.contract IS NOT DISTINCT FROM d.contract
)
SELECT day, user, contract, pair, timeframe, source, predictions, pending, canceled, unrevealed,
       resolved, correct,
       CASE WHEN resolved > 0 THEN correct::DOUBLE / resolved END AS accuracy,
       CASE WHEN stake_known > 0 THEN stake END AS stake,
       CASE WHEN payout_known > 0 THEN payout END AS payout,
       CASE WHEN profit_known > 0 THEN profit END AS profit,
       CASE WHEN revenue_known > 0 THEN revenue END AS revenue,
       stake_known, payout_known, profit_known, revenue_known,
       CASE WHEN settled_stake_unknown = 0 THEN settled_stake_known_sum END AS settled_stake,
       settled_payout,
       CASE WHEN settled_stake_unknown = 0 THEN settled_payout - settled_stake_known_sum END
         AS cash_pnl,
       CASE WHEN resolved_stake_unknown = 0 THEN resolved_stake_known_sum END AS resolved_stake,
       CASE WHEN unrevealed_stake_unknown = 0 THEN unrevealed_stake_known_sum END
         AS unrevealed_stake,
       CASE WHEN refund_pending_unknown = 0 THEN refund_pending_known_sum END AS refund_pending,
       refund_claimed,
       settled_stake_unknown, resolved_stake_unknown, unrevealed_stake_unknown,
       refund_pending_unknown, settled_stake_known_sum, resolved_stake_known_sum,
       unrevealed_stake_known_sum, refund_pending_known_sum,
       ${RUN} AS run_id
FROM merged
WHERE predictions > 0
ORDER BY day, contract, user;
