-- The lowest slot of the payouts and truevals of a window (the window's events).
SELECT min(slot) FROM (SELECT slot FROM pdr_payouts WHERE timestamp >= ${from_ms} AND timestamp < ${checkpoint_ms} UNION ALL SELECT slot FROM pdr_truevals WHERE timestamp >= ${from_ms} AND timestamp < ${checkpoint_ms})
