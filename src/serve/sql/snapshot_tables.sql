-- What the pages read besides the metric tables, made once per snapshot (its files never change)
-- as in-memory tables.

-- The unclaimed payouts and refunds per (day, predictoor, feed).
CREATE TABLE serve_unclaimed AS
SELECT serve_day(slot) AS day, user, contract, min(pair) AS pair, min(timeframe) AS timeframe,
       count(*) FILTER (WHERE status = 'paying') AS unclaimed_predictions,
       sum(stake) FILTER (WHERE status = 'paying') AS unclaimed_stake,
       count(*) FILTER (WHERE status = 'canceled') AS refunds_pending,
       sum(stake) FILTER (WHERE status = 'canceled') AS refund_pending
FROM bronze_pdr_predictions
WHERE payout IS NULL AND status IN ('paying', 'canceled')
GROUP BY ALL ORDER BY day;

-- Each predictoor's newest 50 predictions (every period ends at the checkpoint's day, so a
-- period's newest 50 are among them), without a window over every prediction: per predictoor the
-- newest day from which on it has at least 50, then the window over those days only.
CREATE TABLE serve_recent AS
WITH d AS (SELECT user, slot // 86400 AS dn, count(*) AS n FROM bronze_pdr_predictions GROUP BY ALL),
c AS (SELECT user, dn, sum(n) OVER (PARTITION BY user ORDER BY dn DESC) AS cum FROM d),
t AS (SELECT user, coalesce(max(dn) FILTER (WHERE cum >= 50), min(dn)) AS from_dn FROM c GROUP BY user)
SELECT b.ID, b.slot, b.user, b.contract, b.pair, b.timeframe, b.status, b.stake, b.predvalue,
       b.truevalue, b.payout
FROM bronze_pdr_predictions AS b JOIN t ON b.user = t.user AND b.slot >= t.from_dn * 86400
QUALIFY row_number() OVER (PARTITION BY b.user ORDER BY b.slot DESC, b.ID) <= 50;

-- The small tables the feed pages read.
CREATE TABLE serve_sales AS SELECT * FROM gold_feed_sales_daily ORDER BY day;
CREATE TABLE serve_subs AS
SELECT split_part(ID, '-', 1) AS contract, user, last_price_value, timestamp
FROM pdr_subscriptions ORDER BY timestamp;
CREATE TABLE serve_slots AS
SELECT contract, slot, status, n_predictions, predicted_stake, deadline_timestamp,
       trueval_timestamp, seconds_per_epoch
FROM bronze_pdr_slots ORDER BY slot;
