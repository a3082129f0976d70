-- Rows read and written per table by this run, for the ledger (read before the publish).
-- Parameters: C, F, CUT, d_lo, d_hi.
SELECT 'pdr_predictions' AS table_name, count(*) AS rows_in, 0 AS rows_out, 0 AS rows_updated,
       0 AS rows_deleted
FROM pdr_predictions WHERE timestamp >= ${C} AND timestamp < ${F}
UNION ALL
SELECT 'pdr_truevals', count(*), 0, 0, 0
FROM pdr_truevals WHERE timestamp >= ${C} AND timestamp < ${F}
UNION ALL
SELECT 'pdr_payouts', count(*), 0, 0, 0
FROM pdr_payouts WHERE timestamp >= ${C} AND timestamp < ${F}
UNION ALL
SELECT 'pdr_subscriptions', count(*), 0, 0, 0
FROM pdr_subscriptions WHERE timestamp >= ${C} AND timestamp < ${F}
UNION ALL
SELECT 'bronze_pdr_predictions', 0,
       (SELECT count(*) FROM etl_stage_predictions WHERE is_new),
       (SELECT count(*) FROM etl_stage_predictions WHERE NOT is_new),
       (SELECT count(*) FROM bronze_pdr_predictions WHERE timestamp >= ${CUT})
UNION ALL
SELECT 'bronze_pdr_slots', 0,
       (SELECT count(*) FROM etl_stage_slots WHERE is_new),
       (SELECT count(*) FROM etl_stage_slots WHERE NOT is_new),
       (SELECT count(*) FROM bronze_pdr_slots WHERE timestamp >= ${CUT})
UNION ALL
SELECT 'gold_predictoor_daily', 0, (SELECT count(*) FROM etl_stage_gold_predictoor), 0,
       (SELECT count(*) FROM gold_predictoor_daily AS g
        WHERE g.day BETWEEN DATE '1970-01-01' + CAST(${d_lo} AS INTEGER)
                        AND DATE '1970-01-01' + CAST(${d_hi} AS INTEGER) AND EXISTS (
          SELECT 1 FROM etl_stage_gold_predictoor_keys AS k
          WHERE k.day = g.day AND k.user IS NOT DISTINCT FROM g.user
            AND k.contract IS NOT DISTINCT FROM g.contract))
UNION ALL
SELECT 'gold_feed_daily', 0, (SELECT count(*) FROM etl_stage_gold_feed), 0,
       (SELECT count(*) FROM gold_feed_daily AS g
        WHERE g.day BETWEEN DATE '1970-01-01' + CAST(${d_lo} AS INTEGER)
                        AND DATE '1970-01-01' + CAST(${d_hi} AS INTEGER) AND EXISTS (
          SELECT 1 FROM etl_stage_gold_feed_keys AS k
          WHERE k.day = g.day AND k.contract IS NOT DISTINCT FROM g.contract))
UNION ALL
SELECT 'gold_feed_sales_daily', 0, (SELECT count(*) FROM etl_stage_gold_sales), 0,
       (SELECT count(*) FROM gold_feed_sales_daily
        WHERE day IN (SELECT day FROM etl_stage_gold_sales_keys));
