-- The gold groups this run replaces. Predictoor groups: those of the delta (and, in a rebuild,
-- every live one). Feed groups: those of the changed predictoor groups and of every staged or
-- deleted slot. Sales days: those of the window's subscriptions plus every live sales day from
-- CUT's day on. Each set is one DISTINCT over its sources (a UNION or DISTINCT of each source
-- would size a hash table of its own). Parameters: C, F, CUT, ALL_GROUPS.
INSERT INTO etl_stage_gold_predictoor_keys
SELECT DISTINCT day, user, contract FROM (
  SELECT day, user, contract FROM etl_stage_gold_predictoor_delta
  UNION ALL
  SELECT day, user, contract FROM etl_stage_gold_predictoor
  UNION ALL
  SELECT day, user, contract FROM gold_predictoor_daily WHERE ${ALL_GROUPS} = 1);

INSERT INTO etl_stage_gold_feed_keys
SELECT DISTINCT day, contract FROM (
  SELECT day, contract FROM etl_stage_gold_predictoor_keys
  UNION ALL
  SELECT etl_day(slot), contract FROM etl_stage_slots
  UNION ALL
  SELECT etl_day(slot), contract FROM bronze_pdr_slots WHERE timestamp >= ${CUT}
  UNION ALL
  SELECT day, contract FROM gold_feed_daily WHERE ${ALL_GROUPS} = 1);

INSERT INTO etl_stage_gold_sales_keys
SELECT DISTINCT day FROM (
  SELECT etl_day_ms(timestamp) AS day FROM pdr_subscriptions
  WHERE timestamp >= ${C} AND timestamp < ${F}
  UNION ALL
  SELECT day FROM gold_feed_sales_daily WHERE day >= etl_day_ms(${CUT}));
