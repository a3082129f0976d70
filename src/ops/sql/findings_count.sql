-- How many findings a check's query lists.
SELECT count(*) FROM (${findings}) AS findings
