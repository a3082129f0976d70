-- Rebuild: every (day, predictoor, feed) group from the staged predictions (all of them). The same
-- definitions as the delta path, computed directly. Parameters: RUN.
INSERT INTO etl_stage_gold_predictoor BY NAME
WITH flagged AS (
  SELECT *,
         status = 'paying' AND predvalue IS NOT NULL AND truevalue IS NOT NULL AS is_resolved,
         status = 'paying' AND predvalue IS NULL AS is_unrevealed,
         status = 'canceled' AND payout IS NULL AS is_refund_pending
  FROM etl_stage_predictions
),
groups AS (
  SELECT etl_day(slot) AS day,
         user,
         contract,
         min(pair) AS pair,
         min(timeframe) AS timeframe,
         min(source) AS source,
         count(*) AS predictions,
         count(*) FILTER (WHERE status = 'pending') AS pending,
         count(*) FILTER (WHERE status = 'canceled') AS canceled,
         count(*) FILTER (WHERE is_unrevealed) AS unrevealed,
         count(*) FILTER (WHERE is_resolved) AS resolved,
         count(*) FILTER (WHERE is_resolved AND predvalue = truevalue) AS correct,
         sum(stake) AS stake,
         count(stake) AS stake_known,
         sum(payout) AS payout,
         count(payout) AS payout_known,
         sum(payout - stake) FILTER (WHERE is_resolved) AS profit,
         count(payout - stake) FILTER (WHERE is_resolved) AS profit_known,
         sum(revenue) FILTER (WHERE status = 'paying') AS revenue,
         count(revenue) FILTER (WHERE status = 'paying') AS revenue_known,
         coalesce(sum(payout) FILTER (WHERE status = 'paying'), 0) AS settled_payout,
         coalesce(sum(payout) FILTER (WHERE status = 'canceled'), 0) AS refund_claimed,
         count(*) FILTER (WHERE status = 'paying' AND stake IS NULL) AS settled_stake_unknown,
         coalesce(sum(stake) FILTER (WHERE status = 'paying'), 0) AS settled_stake_known_sum,
         count(*) FILTER (WHERE is_resolved AND stake IS NULL) AS resolved_stake_unknown,
         coalesce(sum(stake) FILTER (WHERE is_resolved), 0) AS resolved_stake_known_sum,
         count(*) FILTER (WHERE is_unrevealed AND stake IS NULL) AS unrevealed_stake_unknown,
         coalesce(sum(stake) FILTER (WHERE is_unrevealed), 0) AS unrevealed_stake_known_sum,
         count(*) FILTER (WHERE is_refund_pending AND stake IS NULL) AS refund_pending_unknown,
         coalesce(sum(stake) FILTER (WHERE is_refund_pending), 0) AS refund_pending_known_sum
  FROM flagged
  GROUP BY etl_day(slot), user, contract
)
SELECT *,
       CASE WHEN resolved > 0 THEN correct::DOUBLE / resolved END AS accuracy,
       CASE WHEN settled_stake_unknown = 0 THEN settled_stake_known_sum END AS settled_stake,
       CASE WHEN settled_stake_unknown = 0 THEN settled_payout - settled_stake_known_sum END
         AS cash_pnl,
       CASE WHEN resolved_stake_unknown = 0 THEN resolved_stake_known_sum END AS resolved_stake,
       CASE WHEN unrevealed_stake_unknown = 0 THEN unrevealed_stake_known_sum END
         AS unrevealed_stake,
       CASE WHEN refund_pending_unknown = 0 THEN refund_pending_known_sum END AS refund_pending,
       ${RUN} AS run_id
FROM groups
ORDER BY day, contract, user;
