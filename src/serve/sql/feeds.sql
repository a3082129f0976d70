-- Feeds, and the Feed page's "Summary": every feed (pdr_contracts and any contract with
-- predictions or sales, so that none is dropped by a join) with the period's figures, or only the
-- feed $3 (NULL: every feed). $1, $2: the period; $4 to $10: the filters (part_metric_filter,
-- part_feed_filter; NULL on the Feed page).
WITH k AS (
  SELECT ID AS contract, pair, timeframe, source FROM pdr_contracts
  UNION SELECT contract, min(pair), min(timeframe), min(source) FROM serve_fd
        WHERE contract NOT IN (SELECT ID FROM pdr_contracts) GROUP BY contract
  UNION SELECT contract, min(pair), min(timeframe), min(source) FROM serve_sales
        WHERE contract NOT IN (SELECT ID FROM pdr_contracts)
          AND contract NOT IN (SELECT contract FROM serve_fd)
        GROUP BY contract),
k1 AS (
  SELECT contract, min(pair) AS pair, min(timeframe) AS timeframe, min(source) AS source
  FROM k WHERE $3 IS NULL OR contract = $3 GROUP BY contract),
kk AS (SELECT * FROM k1 WHERE ${feed_filter}),
f AS (
  SELECT contract, CAST(sum(slots) AS BIGINT) AS slots,
         CAST(sum(slots_canceled) AS BIGINT) AS slots_canceled, ${metric_sums},
         sum(revenue) AS revenue, CAST(sum(consensus_slots) AS BIGINT) AS consensus_slots,
         CAST(sum(consensus_correct_slots) AS BIGINT) AS consensus_correct_slots,
         sum(consensus_stake) AS consensus_stake,
         sum(consensus_correct_stake) AS consensus_correct_stake,
         CAST(count(DISTINCT day) FILTER (WHERE predictions > 0) AS BIGINT) AS days_active
  FROM serve_fd WHERE serve_day_in(day, $1, $2) AND ($3 IS NULL OR contract = $3)
  GROUP BY contract),
u AS (
  SELECT contract, CAST(count(DISTINCT user) AS BIGINT) AS predictoors
  FROM serve_pd WHERE serve_day_in(day, $1, $2) AND ($3 IS NULL OR contract = $3)
  GROUP BY contract),
s AS (
  SELECT contract, CAST(count(*) AS BIGINT) AS subscriptions,
         CAST(count(DISTINCT user) AS BIGINT) AS buyers, sum(last_price_value) AS sales
  FROM serve_subs
  WHERE serve_second_in(timestamp // 1000, $1, $2) AND ($3 IS NULL OR contract = $3)
  GROUP BY 1),
j AS (
  SELECT kk.*, coalesce(u.predictoors, 0) AS predictoors, coalesce(f.slots, 0) AS slots,
         coalesce(f.slots_canceled, 0) AS slots_canceled,
         coalesce(f.predictions, 0) AS predictions, coalesce(f.resolved, 0) AS resolved,
         coalesce(f.unrevealed, 0) AS unrevealed, coalesce(f.correct, 0) AS correct, f.stake,
         f.settled_stake, f.settled_payout, coalesce(f.days_active, 0) AS days_active, f.cash_pnl, f.resolved_stake, f.profit, f.revenue,
         coalesce(f.consensus_slots, 0) AS consensus_slots, f.consensus_correct_slots,
         f.consensus_stake, f.consensus_correct_stake,
         coalesce(s.subscriptions, 0) AS subscriptions, coalesce(s.buyers, 0) AS buyers,
         coalesce(s.sales, 0::DECIMAL(38, 18)) AS sales
  FROM kk LEFT JOIN f ON f.contract = kk.contract LEFT JOIN u ON u.contract = kk.contract
  LEFT JOIN s ON s.contract = kk.contract),
r AS (
  SELECT *, ${ratios}, ${returns},
         CASE WHEN consensus_stake > 0
              THEN CAST(consensus_correct_stake AS DOUBLE) / CAST(consensus_stake AS DOUBLE) END
           AS consensus_accuracy,
         CASE WHEN consensus_slots > 0 THEN consensus_correct_slots / consensus_slots END
           AS consensus_slot_accuracy
  FROM j)
SELECT pair, timeframe, sales, contract, source, predictoors, predictions, accuracy, cash_pnl,
       cash_roi, apr, buyers, revealed_share, stake, settled_stake, settled_payout, days_active,
       slots, slots_canceled, resolved, unrevealed, correct, accuracy_low, accuracy_high,
       consensus_slots, consensus_accuracy, consensus_slot_accuracy, subscriptions, revenue
FROM r WHERE ${metric_filter} ORDER BY ${order}, contract
