-- Rebuild: the slot range of every prediction of the window (an empty range when there are none).
-- Parameters: S, C, F.
SELECT coalesce(min(slot), 0) AS k_lo, coalesce(max(slot), -1) AS k_hi
FROM etl_view_submissions
WHERE timestamp >= greatest(${S}, ${C}) AND timestamp < ${F};
