-- The slot ranges of the window's payouts and truevals (empty ranges when there are none), so that
-- waiting_update.sql reads only that part of the built tables. Parameters: C, F.
SELECT (SELECT coalesce(min(slot), 0) FROM pdr_payouts
        WHERE timestamp >= ${C} AND timestamp < ${F}) AS wy_lo,
       (SELECT coalesce(max(slot), -1) FROM pdr_payouts
        WHERE timestamp >= ${C} AND timestamp < ${F}) AS wy_hi,
       (SELECT coalesce(min(slot), 0) FROM pdr_truevals
        WHERE timestamp >= ${C} AND timestamp < ${F}) AS wt_lo,
       (SELECT coalesce(max(slot), -1) FROM pdr_truevals
        WHERE timestamp >= ${C} AND timestamp < ${F}) AS wt_hi;
