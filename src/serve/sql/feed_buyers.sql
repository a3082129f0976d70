-- Feed, "Buyers": the feed $3's subscribers in the period ($1, $2).
SELECT user, CAST(count(*) AS BIGINT) AS subscriptions, sum(last_price_value) AS sales,
       serve_iso(min(timestamp)) AS first_at, serve_iso(max(timestamp)) AS last_at
FROM serve_subs
WHERE serve_second_in(timestamp // 1000, $1, $2) AND contract = $3
GROUP BY user ORDER BY sales DESC NULLS LAST, user
