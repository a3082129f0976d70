-- (Part of the page queries.) The sums of the per-day metric columns of serve_pd or serve_fd over a
-- group of rows; part_ratios computes the ratios from them.
  CAST(sum(predictions) AS BIGINT) AS predictions,
  CAST(sum(resolved) AS BIGINT) AS resolved,
  CAST(sum(unrevealed) AS BIGINT) AS unrevealed,
  CAST(sum(correct) AS BIGINT) AS correct,
  sum(stake) AS stake,
  serve_strict_sum(settled_stake) AS settled_stake,
  serve_strict_sum(settled_payout) AS settled_payout,
  serve_strict_sum(cash_pnl) AS cash_pnl,
  serve_strict_sum(resolved_stake) AS resolved_stake,
  sum(profit) AS profit,
  serve_strict_sum(unrevealed_stake) AS unrevealed_stake,
  serve_strict_sum(refund_pending) AS refund_pending,
  serve_strict_sum(refund_claimed) AS refund_claimed
