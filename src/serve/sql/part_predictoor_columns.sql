-- (Part of predictoors and predictoors_my_total.) The leaderboard's columns.
  "rank", user, mine, feeds, predictions, resolved, unrevealed, correct, accuracy, revealed_share,
  accuracy_low, accuracy_high, stake, settled_stake, settled_payout, cash_pnl, resolved_stake,
  profit, roi, unrevealed_stake, refund_pending, refund_claimed
