-- A key gone from predlake_meta.
DELETE FROM predlake_meta WHERE key = ${key}
