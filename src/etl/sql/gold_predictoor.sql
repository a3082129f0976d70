-- Recomputes the affected (day, predictoor, feed) groups from the built predictions as they will
-- be after this run (etl_view_predictions), reading only the days concerned. Metric definitions:
-- docs/etl.md. Parameters: RUN, d_lo, d_hi.
INSERT INTO etl_stage_gold_predictoor BY NAME
SELECT etl_day(b.slot) AS day,
       b.user,
       b.contract,
       min(b.pair) AS pair,
       min(b.timeframe) AS timeframe,
       min(b.source) AS source,
       count(*) AS predictions,
       count(*) FILTER (WHERE b.status = 'pending') AS pending,
       count(*) FILTER (WHERE b.status = 'canceled') AS canceled,
       count(*) FILTER (WHERE b.status = 'paying' AND b.predvalue IS NULL) AS unrevealed,
       count(*) FILTER (WHERE b.status = 'paying' AND b.predvalue IS NOT NULL
                          AND b.truevalue IS NOT NULL) AS resolved,
       count(*) FILTER (WHERE b.status = 'paying' AND b.predvalue = b.truevalue) AS correct,
       CASE WHEN resolved > 0 THEN correct::DOUBLE / resolved END AS accuracy,
       sum(b.stake) AS stake,
       sum(b.payout) AS payout,
       sum(b.payout - b.stake) FILTER (WHERE b.status = 'paying' AND b.predvalue IS NOT NULL
                                         AND b.truevalue IS NOT NULL) AS profit,
       sum(b.revenue) FILTER (WHERE b.status = 'paying') AS revenue,
       ${RUN} AS run_id
FROM etl_view_predictions AS b
WHERE b.slot BETWEEN ${d_lo} * 86400 AND ${d_hi} * 86400 + 86399
  AND EXISTS (
    SELECT 1 FROM etl_stage_gold_predictoor_keys AS k
    WHERE k.day = etl_day(b.slot) AND k.user IS NOT DISTINCT FROM b.user
      AND k.contract IS NOT DISTINCT FROM b.contract)
GROUP BY etl_day(b.slot), b.user, b.contract
ORDER BY day, contract, user;
