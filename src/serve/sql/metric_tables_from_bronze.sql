-- serve_pd and serve_fd when the snapshot's gold tables predate the cash and consensus columns
-- (they read as NULL): those columns computed from the bronze tables, with the gold definitions.
CREATE TABLE serve_pd AS
SELECT g.* EXCLUDE (settled_stake, settled_payout, cash_pnl, resolved_stake, unrevealed_stake,
                    refund_pending, refund_claimed),
       c.settled_stake, c.settled_payout, c.settled_payout - c.settled_stake AS cash_pnl,
       c.resolved_stake, c.unrevealed_stake, c.refund_pending, c.refund_claimed
FROM gold_predictoor_daily AS g
LEFT JOIN (SELECT serve_day(slot) AS day, user, contract, ${bronze_cash}
           FROM bronze_pdr_predictions GROUP BY ALL) AS c
  ON c.day = g.day AND c.user = g.user AND c.contract IS NOT DISTINCT FROM g.contract
ORDER BY g.day;

CREATE TABLE serve_fd AS
SELECT g.* EXCLUDE (settled_stake, settled_payout, cash_pnl, resolved_stake, unrevealed_stake,
                    refund_pending, refund_claimed, consensus_slots, consensus_correct_slots,
                    consensus_stake, consensus_correct_stake),
       c.settled_stake, c.settled_payout, c.settled_payout - c.settled_stake AS cash_pnl,
       c.resolved_stake, c.unrevealed_stake, c.refund_pending, c.refund_claimed,
       coalesce(k.consensus_slots, 0) AS consensus_slots,
       coalesce(k.consensus_correct_slots, 0) AS consensus_correct_slots,
       coalesce(k.consensus_stake, 0::DECIMAL(38, 18)) AS consensus_stake,
       coalesce(k.consensus_correct_stake, 0::DECIMAL(38, 18)) AS consensus_correct_stake
FROM gold_feed_daily AS g
LEFT JOIN (SELECT serve_day(slot) AS day, contract, ${bronze_cash}
           FROM bronze_pdr_predictions GROUP BY ALL) AS c
  ON c.day = g.day AND c.contract IS NOT DISTINCT FROM g.contract
LEFT JOIN (SELECT serve_day(slot) AS day, contract, count(*) AS consensus_slots,
                  count(*) FILTER (WHERE (truevalue AND roundSumStakesUp * 2 > roundSumStakes)
                                      OR (NOT truevalue AND roundSumStakesUp * 2 < roundSumStakes))
                    AS consensus_correct_slots,
                  sum(roundSumStakes) AS consensus_stake,
                  sum(CASE WHEN truevalue THEN roundSumStakesUp
                           ELSE roundSumStakes - roundSumStakesUp END) AS consensus_correct_stake
           FROM bronze_pdr_slots
           WHERE status = 'paying' AND truevalue IS NOT NULL AND roundSumStakes > 0
           GROUP BY ALL) AS k
  ON k.day = g.day AND k.contract IS NOT DISTINCT FROM g.contract
ORDER BY g.day;
