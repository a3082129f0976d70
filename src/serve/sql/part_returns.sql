-- (Part of predictoors, predictoors_my_total and feeds.) The cash return on stake and its
-- annualised rate (docs/serve.md, "Column definitions"), over part_metric_sums' columns and
-- days_active (the period's slot days with a prediction). DOUBLE; NULL when a denominator is 0 or
-- the cash P&L is unknown.
  CASE WHEN settled_stake > 0
       THEN CAST(cash_pnl AS DOUBLE) / CAST(settled_stake AS DOUBLE) END AS cash_roi,
  CASE WHEN settled_stake > 0 AND days_active > 0
       THEN CAST(cash_pnl AS DOUBLE) / CAST(settled_stake AS DOUBLE) * 365.0 / days_active END
    AS apr
