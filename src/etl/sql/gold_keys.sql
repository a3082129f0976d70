-- The gold groups this run replaces. Predictoor groups: those of the delta (and, in a rebuild,
-- every live one). Feed groups: those of the changed predictoor groups and of every staged or
-- deleted slot. Sales days: those of the window's subscriptions plus every live sales day from
-- CUT's day on. Parameters: C, F, CUT, ALL_GROUPS.
INSERT INTO etl_stage_gold_predictoor_keys
SELECT day, user, contract FROM etl_stage_gold_predictoor_delta
UNION
SELECT day, user, contract FROM etl_stage_gold_predictoor
UNION
SELECT day, user, contract FROM gold_predictoor_daily WHERE ${ALL_GROUPS} = 1;

INSERT INTO etl_stage_gold_feed_keys
SELECT DISTINCT day, contract FROM etl_stage_gold_predictoor_keys
UNION
SELECT DISTINCT etl_day(slot), contract FROM etl_stage_slots
UNION
SELECT DISTINCT etl_day(slot), contract FROM bronze_pdr_slots WHERE timestamp >= ${CUT}
UNION
SELECT day, contract FROM gold_feed_daily WHERE ${ALL_GROUPS} = 1;

INSERT INTO etl_stage_gold_sales_keys
SELECT DISTINCT etl_day_ms(timestamp) FROM pdr_subscriptions
WHERE timestamp >= ${C} AND timestamp < ${F}
UNION
SELECT DISTINCT day FROM gold_feed_sales_daily WHERE day >= etl_day_ms(${CUT});
