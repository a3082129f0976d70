-- (Part of metric_tables_from_bronze.) The cash columns of a group of bronze_pdr_predictions rows.
  CASE WHEN count(*) FILTER (WHERE status = 'paying' AND stake IS NULL) = 0
       THEN coalesce(sum(stake) FILTER (WHERE status = 'paying'), 0::DECIMAL(38, 18)) END
    AS settled_stake,
  coalesce(sum(payout) FILTER (WHERE status = 'paying'), 0::DECIMAL(38, 18)) AS settled_payout,
  CASE WHEN count(*) FILTER (WHERE status = 'paying' AND predvalue IS NOT NULL
                                   AND truevalue IS NOT NULL AND stake IS NULL) = 0
       THEN coalesce(sum(stake) FILTER (WHERE status = 'paying' AND predvalue IS NOT NULL
                                              AND truevalue IS NOT NULL), 0::DECIMAL(38, 18)) END
    AS resolved_stake,
  CASE WHEN count(*) FILTER (WHERE status = 'paying' AND predvalue IS NULL AND stake IS NULL) = 0
       THEN coalesce(sum(stake) FILTER (WHERE status = 'paying' AND predvalue IS NULL),
                     0::DECIMAL(38, 18)) END AS unrevealed_stake,
  CASE WHEN count(*) FILTER (WHERE status = 'canceled' AND payout IS NULL AND stake IS NULL) = 0
       THEN coalesce(sum(stake) FILTER (WHERE status = 'canceled' AND payout IS NULL),
                     0::DECIMAL(38, 18)) END AS refund_pending,
  coalesce(sum(payout) FILTER (WHERE status = 'canceled'), 0::DECIMAL(38, 18)) AS refund_claimed
