-- Before a rollback to CUT publishes: the lowest slot of the built rows it deletes (those with
-- timestamp >= CUT), so that waiting_rollback.sql reads only the slots from there on. Parameters:
-- CUT.
SELECT (SELECT coalesce(min(slot), 9223372036854775807) FROM bronze_pdr_predictions
        WHERE timestamp >= ${CUT}) AS dy_lo,
       (SELECT coalesce(min(slot), 9223372036854775807) FROM bronze_pdr_slots
        WHERE timestamp >= ${CUT}) AS dt_lo;
