-- Recomputes the affected sales days from the raw subscriptions with S <= timestamp < F (a
-- subscription is never updated, so the days are a plain aggregate). Parameters: S, F, RUN, sd_lo,
-- sd_hi.
INSERT INTO etl_stage_gold_sales BY NAME
SELECT etl_day_ms(timestamp) AS day,
       split_part(ID, '-', 1) AS contract,
       min(pair) AS pair,
       min(timeframe) AS timeframe,
       min(source) AS source,
       count(*) AS subscriptions,
       count(DISTINCT user) AS buyers,
       sum(last_price_value) AS sales,
       ${RUN} AS run_id
FROM pdr_subscriptions
WHERE timestamp >= ${S} AND timestamp < ${F}
  AND timestamp >= ${sd_lo} * 86400000 AND timestamp < (${sd_hi} + 1) * 86400000
  AND etl_day_ms(timestamp) IN (SELECT day FROM etl_stage_gold_sales_keys)
GROUP BY ALL
ORDER BY day, contract;
