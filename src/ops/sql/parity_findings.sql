-- The predictions in raw but not bronze, and the reverse.
WITH r AS (${raw}), b AS (${bronze}) SELECT 'missing from bronze' AS problem, r.ID, r.timestamp FROM r WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.ID = r.ID) UNION ALL SELECT 'not in raw', b.ID, b.timestamp FROM b WHERE NOT EXISTS (SELECT 1 FROM r WHERE r.ID = b.ID)
