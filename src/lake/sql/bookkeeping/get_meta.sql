-- The value of a key in predlake_meta (no row: never set).
SELECT value FROM predlake_meta WHERE key = ${key}
