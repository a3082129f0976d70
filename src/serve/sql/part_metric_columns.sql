-- (Part of the page queries.) The metric columns in display order, after the page's key columns.
  predictions, resolved, unrevealed, correct, accuracy, revealed_share, accuracy_low,
  accuracy_high, stake, settled_stake, settled_payout, cash_pnl, resolved_stake, profit, roi,
  unrevealed_stake, refund_pending, refund_claimed
