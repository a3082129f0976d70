-- The orphan payouts inside the covered window and outside it, in one read.
SELECT count(*) FILTER (WHERE inside), count(*) FILTER (WHERE NOT inside) FROM (${orphans})
