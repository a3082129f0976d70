-- Publish of the gold tables in an update: each affected group's live row takes its staged row's
-- values in place, and a staged group with no live row is appended. An update only adds
-- predictions, subscriptions and events to a group, so every affected group has a staged row and
-- none is deleted (a rollback or a rebuild replaces the groups instead, publish_gold_replace.sql).
-- In place because an append makes, in each column of a table last checkpointed, a fresh
-- in-memory segment whose validity mask DuckDB fills for the whole block (256 KB a column, about
-- 60 columns for the three tables), and the next open replays it from the log the same way; most
-- hours change only groups that exist already and so append to no gold table (docs/scale.md).
-- The feed keys' day range covers every affected group. Parameters: d_lo, d_hi.
MERGE INTO gold_predictoor_daily AS g
USING (SELECT * FROM etl_stage_gold_predictoor ORDER BY day, contract, user) AS s
ON g.day = s.day AND g.user IS NOT DISTINCT FROM s.user AND g.contract IS NOT DISTINCT FROM s.contract
  AND g.day BETWEEN DATE '1970-01-01' + CAST(${d_lo} AS INTEGER)
                AND DATE '1970-01-01' + CAST(${d_hi} AS INTEGER)
WHEN MATCHED THEN UPDATE
WHEN NOT MATCHED THEN INSERT BY NAME;

MERGE INTO gold_feed_daily AS g
USING (SELECT * FROM etl_stage_gold_feed ORDER BY day, contract) AS s
ON g.day = s.day AND g.contract IS NOT DISTINCT FROM s.contract
  AND g.day BETWEEN DATE '1970-01-01' + CAST(${d_lo} AS INTEGER)
                AND DATE '1970-01-01' + CAST(${d_hi} AS INTEGER)
WHEN MATCHED THEN UPDATE
WHEN NOT MATCHED THEN INSERT BY NAME;

MERGE INTO gold_feed_sales_daily AS g
USING (SELECT * FROM etl_stage_gold_sales ORDER BY day, contract) AS s
ON g.day = s.day AND g.contract IS NOT DISTINCT FROM s.contract
WHEN MATCHED THEN UPDATE
WHEN NOT MATCHED THEN INSERT BY NAME;
