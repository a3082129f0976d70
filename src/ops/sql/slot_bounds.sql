-- The lowest and highest slot over the tables' bounds (slot_bounds_of_table, UNION ALL).
SELECT min(lo), max(hi) FROM (${bounds})
