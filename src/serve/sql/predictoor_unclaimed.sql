-- Predictoor, "Unclaimed payouts and refunds": the predictoor $3's, per feed, in the period ($1, $2).
SELECT contract, min(pair) AS pair, min(timeframe) AS timeframe,
       CAST(sum(unclaimed_predictions) AS BIGINT) AS unclaimed_predictions,
       coalesce(sum(unclaimed_stake), 0::DECIMAL(38, 18)) AS unclaimed_stake,
       CAST(sum(refunds_pending) AS BIGINT) AS refunds_pending,
       coalesce(sum(refund_pending), 0::DECIMAL(38, 18)) AS refund_pending
FROM serve_unclaimed
WHERE serve_day_in(day, $1, $2) AND user = $3
GROUP BY contract ORDER BY contract
