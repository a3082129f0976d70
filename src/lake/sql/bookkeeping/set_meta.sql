-- A key of predlake_meta set, inserted or replaced.
INSERT INTO predlake_meta VALUES (${key}, ${value}) ON CONFLICT (key) DO UPDATE SET value = excluded.value
