-- A built table's rows whose event time, or last folded event time, lies outside [start, checkpoint).
SELECT ${table_name} AS table_name, ${id} AS ID, ${ts}::BIGINT AS timestamp, ${last}::BIGINT AS last_event_timestamp FROM ${table} WHERE (${outside})${and_changed}
