-- Overview and Predictoor, "Pending outcomes per day": the stake waiting for truevals or for claims
-- per day of the period ($1, $2), of the predictoor $3 (NULL: the network).
SELECT CAST(day AS VARCHAR) AS day,
       CAST(sum(awaiting_trueval) AS BIGINT) AS awaiting_trueval,
       sum(awaiting_trueval_stake) AS awaiting_trueval_stake,
       CAST(sum(awaiting_claim) AS BIGINT) AS awaiting_claim,
       sum(awaiting_claim_stake) AS awaiting_claim_stake
FROM serve_pending
WHERE serve_day_in(day, $1, $2) AND ($3 IS NULL OR user = $3)
GROUP BY day ORDER BY day
