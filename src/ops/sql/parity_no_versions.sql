-- No earlier versions (a lake without the versions table), in parity_versions' columns.
SELECT NULL::VARCHAR AS ID, NULL::BIGINT AS timestamp, NULL::BIGINT AS slot WHERE FALSE
