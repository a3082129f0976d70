-- (Part of the page queries.) The ratios over part_metric_sums' columns (DOUBLE; NULL when the
-- denominator is 0).
  CASE WHEN resolved > 0 THEN correct / resolved END AS accuracy,
  CASE WHEN resolved + unrevealed > 0 THEN resolved / (resolved + unrevealed) END AS revealed_share,
  CASE WHEN resolved + unrevealed > 0 THEN correct / (resolved + unrevealed) END AS accuracy_low,
  CASE WHEN resolved + unrevealed > 0 THEN (correct + unrevealed) / (resolved + unrevealed) END
    AS accuracy_high,
  CASE WHEN resolved_stake > 0 THEN CAST(profit AS DOUBLE) / CAST(resolved_stake AS DOUBLE) END
    AS roi
