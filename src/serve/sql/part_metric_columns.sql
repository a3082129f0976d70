-- (Part of the page queries.) The metric columns in display order, after the page's key columns:
-- cash P&L and the others the predictoor's tables show first (src/serve/columns.cpp) leading, so
-- that cash P&L is in view on a phone; then the rest.
  cash_pnl, predictions, accuracy, revealed_share, stake, settled_payout, profit, resolved,
  unrevealed, correct, accuracy_low, accuracy_high, settled_stake, resolved_stake, roi,
  unrevealed_stake, refund_pending, refund_claimed
