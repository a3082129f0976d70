-- A table's rows in a slot range and its rows without a slot, each part with its filter in the scan.
(SELECT ${columns} FROM ${table} WHERE ${in_range} UNION ALL SELECT ${columns} FROM ${table} WHERE slot IS NULL)
