-- Rebuild: every (day, predictoor, feed) group from the staged predictions (all of them). The same
-- definitions as the delta path, computed directly. Parameters: RUN.
INSERT INTO etl_stage_gold_predictoor BY NAME
WITH flagged AS (
  SELECT *,
         status = 'paying' AND predvalue IS NOT NULL AND truevalue IS NOT NULL AS is_resolved
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
         count(*) FILTER (WHERE status = 'paying' AND predvalue IS NULL) AS unrevealed,
         count(*) FILTER (WHERE is_resolved) AS resolved,
         count(*) FILTER (WHERE is_resolved AND predvalue = truevalue) AS correct,
         sum(stake) AS stake,
         count(stake) AS stake_known,
         sum(payout) AS payout,
         count(payout) AS payout_known,
         sum(payout - stake) FILTER (WHERE is_resolved) AS profit,
         count(payout - stake) FILTER (WHERE is_resolved) AS profit_known,
         sum(revenue) FILTER (WHERE status = 'paying') AS revenue,
         count(revenue) FILTER (WHERE status = 'paying') AS revenue_known
  FROM flagged
  GROUP BY etl_day(slot), user, contract
)
SELECT *,
       CASE WHEN resolved > 0 THEN correct::DOUBLE / resolved END AS accuracy,
       ${RUN} AS run_id
FROM groups
ORDER BY day, contract, user;
