-- The number of predictions in the window [C, F) (zone maps make it cheap): small windows run on
-- one DuckDB thread. Parameters: S, C, F.
SELECT count(*) AS predictions
FROM pdr_predictions
WHERE timestamp >= greatest(${S}, ${C}) AND timestamp < ${F};
