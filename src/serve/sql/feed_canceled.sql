-- Feed, "Canceled slots": the feed $3's newest 100 canceled slots of the period ($1, $2).
SELECT serve_iso(slot * 1000) AS slot_at, n_predictions, predicted_stake,
       serve_iso(deadline_timestamp) AS deadline_at
FROM serve_slots
WHERE serve_second_in(slot, $1, $2) AND contract = $3 AND status = 'canceled'
ORDER BY slot DESC LIMIT 100
