-- How many raw and bronze predictions the window holds.
SELECT (SELECT count(*) FROM (${raw})), (SELECT count(*) FROM (${bronze}))
