-- The IDs of a table's rows without a slot.
SELECT ID FROM ${from} WHERE slot IS NULL AND ID IS NOT NULL
