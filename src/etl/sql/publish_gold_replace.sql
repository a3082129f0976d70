-- Publish of the gold tables in a rollback or a rebuild: the affected groups are replaced by their
-- staged rows, and a group left without predictions is deleted (an update sets the groups in place,
-- publish_gold.sql). The feed keys' day range covers every affected group. Parameters: d_lo, d_hi.
DELETE FROM gold_predictoor_daily AS g
WHERE g.day BETWEEN DATE '1970-01-01' + CAST(${d_lo} AS INTEGER)
                AND DATE '1970-01-01' + CAST(${d_hi} AS INTEGER)
  AND EXISTS (
  SELECT 1 FROM etl_stage_gold_predictoor_keys AS k
  WHERE k.day = g.day AND k.user IS NOT DISTINCT FROM g.user
    AND k.contract IS NOT DISTINCT FROM g.contract);
INSERT INTO gold_predictoor_daily BY NAME
SELECT * FROM etl_stage_gold_predictoor ORDER BY day, contract, user;

DELETE FROM gold_feed_daily AS g
WHERE g.day BETWEEN DATE '1970-01-01' + CAST(${d_lo} AS INTEGER)
                AND DATE '1970-01-01' + CAST(${d_hi} AS INTEGER)
  AND EXISTS (
  SELECT 1 FROM etl_stage_gold_feed_keys AS k
  WHERE k.day = g.day AND k.contract IS NOT DISTINCT FROM g.contract);
INSERT INTO gold_feed_daily BY NAME
SELECT * FROM etl_stage_gold_feed ORDER BY day, contract;

DELETE FROM gold_feed_sales_daily
WHERE day IN (SELECT day FROM etl_stage_gold_sales_keys);
INSERT INTO gold_feed_sales_daily BY NAME
SELECT * FROM etl_stage_gold_sales ORDER BY day, contract;
