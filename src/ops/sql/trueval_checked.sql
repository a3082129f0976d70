-- The slots checked against the exchange (changed: the runs since the mark, or TRUE).
SELECT count(*) FROM bronze_pdr_slots WHERE trueval_agrees IS NOT NULL AND ${changed}
