-- When the lake was made (kept from its first schema check on), unix ms.
INSERT INTO predlake_meta VALUES ('created_at_ms', '${now_ms}') ON CONFLICT DO NOTHING
