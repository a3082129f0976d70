-- Predictoor, "Recent predictions": the predictoor $3's newest 50 predictions of the period ($1, $2).
SELECT serve_iso(slot * 1000) AS slot_at, pair, timeframe, status, stake, predvalue, truevalue,
       payout, contract, ID AS id
FROM serve_recent
WHERE serve_second_in(slot, $1, $2) AND user = $3
ORDER BY slot DESC, ID LIMIT 50
