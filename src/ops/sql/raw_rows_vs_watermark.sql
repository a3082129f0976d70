-- A raw table's rows that meet a condition on their timestamp and their table's watermark w.
SELECT ${table_name} AS table_name, r.ID, r.timestamp, w.start_ms, w.watermark_ms FROM ${table} AS r LEFT JOIN predlake_watermarks AS w ON w.table_name = ${table_name} WHERE (${condition})${and_changed}
