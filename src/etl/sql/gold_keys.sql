-- The gold groups this run changes: those of every staged row and of every live row the publish
-- deletes (timestamp >= CUT), and the sales days of the window's subscriptions plus any live sales
-- day from CUT's day on. Parameters: C, F, CUT.
INSERT INTO etl_stage_gold_predictoor_keys
SELECT DISTINCT etl_day(slot), user, contract FROM etl_stage_predictions
UNION
SELECT DISTINCT etl_day(slot), user, contract FROM bronze_pdr_predictions
WHERE timestamp >= ${CUT};

INSERT INTO etl_stage_gold_feed_keys
SELECT DISTINCT etl_day(slot), contract FROM etl_stage_predictions
UNION
SELECT DISTINCT etl_day(slot), contract FROM etl_stage_slots
UNION
SELECT DISTINCT etl_day(slot), contract FROM bronze_pdr_predictions WHERE timestamp >= ${CUT}
UNION
SELECT DISTINCT etl_day(slot), contract FROM bronze_pdr_slots WHERE timestamp >= ${CUT};

INSERT INTO etl_stage_gold_sales_keys
SELECT DISTINCT etl_day_ms(timestamp) FROM pdr_subscriptions
WHERE timestamp >= ${C} AND timestamp < ${F}
UNION
SELECT DISTINCT day FROM gold_feed_sales_daily WHERE day >= etl_day_ms(${CUT});
