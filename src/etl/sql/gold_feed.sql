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
         sum(g.profit) AS profit
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
         sum(s.revenue) FILTER (WHERE s.status = 'paying') AS revenue
  FROM etl_view_slots AS s
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
       ${RUN} AS run_id
FROM preds AS p
FULL JOIN slots AS s USING (day, contract)
ORDER BY day, contract;
