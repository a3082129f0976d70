-- A table's IDs and slots from a slot on, and those without a slot, each part with its filter in the scan.
(SELECT ID, slot FROM ${table} WHERE slot >= ${lo} UNION ALL SELECT ID, slot FROM ${table} WHERE slot IS NULL)
