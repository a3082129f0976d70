-- What the charts read besides the metric tables, made once per snapshot.

-- serve_pending: per (day, predictoor, feed), the stake whose outcome the lake does not know yet
-- (docs/serve.md, "Pending outcomes"): predictions in slots still waiting for their trueval
-- (status pending), and predictions in paying slots without a claim (the payout, won or lost, is
-- revealed only by the claim; cash P&L counts their stake as not returned). Known stakes only.
CREATE TABLE serve_pending AS
SELECT serve_day(slot) AS day, user, contract,
       count(*) FILTER (WHERE status = 'pending') AS awaiting_trueval,
       coalesce(sum(stake) FILTER (WHERE status = 'pending'), 0::DECIMAL(38, 18))
         AS awaiting_trueval_stake,
       count(*) FILTER (WHERE status = 'paying') AS awaiting_claim,
       coalesce(sum(stake) FILTER (WHERE status = 'paying'), 0::DECIMAL(38, 18))
         AS awaiting_claim_stake
FROM bronze_pdr_predictions
WHERE payout IS NULL AND status IN ('pending', 'paying')
GROUP BY ALL ORDER BY day;

-- serve_items: the metric columns per (day, predictoor) and per (day, feed), one kind of item
-- each, for /compare.
CREATE VIEW serve_items AS
SELECT 'predictoor' AS kind, user AS item, day, predictions, resolved, unrevealed, correct, stake,
       settled_stake, settled_payout, cash_pnl, resolved_stake, profit, unrevealed_stake,
       refund_pending, refund_claimed
FROM serve_pd
UNION ALL
SELECT 'feed', contract, day, predictions, resolved, unrevealed, correct, stake, settled_stake,
       settled_payout, cash_pnl, resolved_stake, profit, unrevealed_stake, refund_pending,
       refund_claimed
FROM serve_fd;
