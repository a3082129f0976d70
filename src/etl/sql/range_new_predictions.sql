-- The slot range of the window's predictions (an empty range when there are none).
-- Parameters: S, C, F.
SELECT coalesce(min(slot), 0) AS np_lo, coalesce(max(slot), -1) AS np_hi
FROM etl_view_submissions
WHERE timestamp >= greatest(${S}, ${C}) AND timestamp < ${F};
