-- The IDs to merge (IDS).
SELECT count(*) FROM ${ids}
