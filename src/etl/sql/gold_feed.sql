-- Recomputes the affected (day, feed) groups from the built predictions and slots as they will be
-- after this run, reading only the days concerned. Metric definitions: docs/etl.md.
-- Parameters: RUN, d_lo, d_hi.
INSERT INTO etl_stage_gold_feed BY NAME
WITH preds AS (
  SELECT etl_day(b.slot) AS day,
         b.contract,
         min(b.pair) AS pair,
         min(b.timeframe) AS timeframe,
         min(b.source) AS source,
         count(DISTINCT b.user) AS predictoors,
         count(*) AS predictions,
         count(*) FILTER (WHERE b.status = 'pending') AS pending,
         count(*) FILTER (WHERE b.status = 'canceled') AS canceled,
         count(*) FILTER (WHERE b.status = 'paying' AND b.predvalue IS NULL) AS unrevealed,
         count(*) FILTER (WHERE b.status = 'paying' AND b.predvalue IS NOT NULL
                            AND b.truevalue IS NOT NULL) AS resolved,
         count(*) FILTER (WHERE b.status = 'paying' AND b.predvalue = b.truevalue) AS correct,
         sum(b.stake) AS stake,
         sum(b.payout) AS payout,
         sum(b.payout - b.stake) FILTER (WHERE b.status = 'paying' AND b.predvalue IS NOT NULL
                                           AND b.truevalue IS NOT NULL) AS profit
  FROM etl_view_predictions AS b
  WHERE b.slot BETWEEN ${d_lo} * 86400 AND ${d_hi} * 86400 + 86399
    AND EXISTS (
      SELECT 1 FROM etl_stage_gold_feed_keys AS k
      WHERE k.day = etl_day(b.slot) AND k.contract IS NOT DISTINCT FROM b.contract)
  GROUP BY etl_day(b.slot), b.contract
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
