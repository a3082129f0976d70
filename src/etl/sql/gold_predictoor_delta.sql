-- What the run changes in each (day, predictoor, feed) group: +1 x the new value of every staged
-- prediction row, -1 x the live value of every row it replaces or the publish deletes (timestamp
-- >= CUT). Exact: counts and DECIMAL sums, so old + delta equals recomputing the group, at a cost
-- that follows the changed rows. Parameters: CUT.
INSERT INTO etl_stage_gold_predictoor_delta BY NAME
WITH changes AS (
  SELECT 1 AS sign, * EXCLUDE (is_new) FROM etl_stage_predictions
  UNION ALL
  SELECT -1 AS sign, * FROM etl_stage_replaced
  UNION ALL
  SELECT -1 AS sign, l.*
  FROM bronze_pdr_predictions AS l
  WHERE l.timestamp >= ${CUT}
),
flagged AS (
  SELECT *,
         status = 'paying' AND predvalue IS NOT NULL AND truevalue IS NOT NULL AS is_resolved,
         status = 'paying' AND predvalue IS NULL AS is_unrevealed,
         status = 'canceled' AND payout IS NULL AS is_refund_pending
  FROM changes
)
SELECT etl_day(slot) AS day,
       user,
       contract,
       min(pair) AS pair,
       min(timeframe) AS timeframe,
       min(source) AS source,
       sum(sign) AS predictions,
       coalesce(sum(sign) FILTER (WHERE status = 'pending'), 0) AS pending,
       coalesce(sum(sign) FILTER (WHERE status = 'canceled'), 0) AS canceled,
       coalesce(sum(sign) FILTER (WHERE is_unrevealed), 0) AS unrevealed,
       coalesce(sum(sign) FILTER (WHERE is_resolved), 0) AS resolved,
       coalesce(sum(sign) FILTER (WHERE is_resolved AND predvalue = truevalue), 0) AS correct,
       sum(sign * stake) AS stake,
       coalesce(sum(sign) FILTER (WHERE stake IS NOT NULL), 0) AS stake_known,
       sum(sign * payout) AS payout,
       coalesce(sum(sign) FILTER (WHERE payout IS NOT NULL), 0) AS payout_known,
       sum(sign * (payout - stake)) FILTER (WHERE is_resolved) AS profit,
       coalesce(sum(sign) FILTER (WHERE is_resolved AND payout - stake IS NOT NULL), 0)
         AS profit_known,
       sum(sign * revenue) FILTER (WHERE status = 'paying') AS revenue,
       coalesce(sum(sign) FILTER (WHERE status = 'paying' AND revenue IS NOT NULL), 0)
         AS revenue_known,
       coalesce(sum(sign * payout) FILTER (WHERE status = 'paying'), 0) AS settled_payout,
       coalesce(sum(sign * payout) FILTER (WHERE status = 'canceled'), 0) AS refund_claimed,
       coalesce(sum(sign) FILTER (WHERE status = 'paying' AND stake IS NULL), 0)
         AS settled_stake_unknown,
       coalesce(sum(sign * stake) FILTER (WHERE status = 'paying'), 0) AS settled_stake_known_sum,
       coalesce(sum(sign) FILTER (WHERE is_resolved AND stake IS NULL), 0)
         AS resolved_stake_unknown,
       coalesce(sum(sign * stake) FILTER (WHERE is_resolved), 0) AS resolved_stake_known_sum,
       coalesce(sum(sign) FILTER (WHERE is_unrevealed AND stake IS NULL), 0)
         AS unrevealed_stake_unknown,
       coalesce(sum(sign * stake) FILTER (WHERE is_unrevealed), 0) AS unrevealed_stake_known_sum,
       coalesce(sum(sign) FILTER (WHERE is_refund_pending AND stake IS NULL), 0)
         AS refund_pending_unknown,
       coalesce(sum(sign * stake) FILTER (WHERE is_refund_pending), 0) AS refund_pending_known_sum
FROM flagged
GROUP BY etl_day(slot), user, contract;
