-- Publish of the gold tables: the affected groups are replaced by their staged rows.
DELETE FROM gold_predictoor_daily AS g
WHERE EXISTS (
  SELECT 1 FROM etl_stage_gold_predictoor_keys AS k
  WHERE k.day = g.day AND k.user IS NOT DISTINCT FROM g.user
    AND k.contract IS NOT DISTINCT FROM g.contract);
INSERT INTO gold_predictoor_daily BY NAME
SELECT * FROM etl_stage_gold_predictoor ORDER BY day, contract, user;

DELETE FROM gold_feed_daily AS g
WHERE EXISTS (
  SELECT 1 FROM etl_stage_gold_feed_keys AS k
  WHERE k.day = g.day AND k.contract IS NOT DISTINCT FROM g.contract);
INSERT INTO gold_feed_daily BY NAME
SELECT * FROM etl_stage_gold_feed ORDER BY day, contract;

DELETE FROM gold_feed_sales_daily
WHERE day IN (SELECT day FROM etl_stage_gold_sales_keys);
INSERT INTO gold_feed_sales_daily BY NAME
SELECT * FROM etl_stage_gold_sales ORDER BY day, contract;
