-- (Part of predictoors and predictoors_my_total.) The leaderboard's columns, the ones it shows
-- first (src/serve/columns.cpp) leading.
  "rank", user, cash_pnl, cash_roi, accuracy, revealed_share, predictions, stake, apr, days_active,
  mine, feeds, resolved, unrevealed, correct, accuracy_low, accuracy_high, settled_stake,
  settled_payout, resolved_stake, profit, roi, unrevealed_stake, refund_pending, refund_claimed
