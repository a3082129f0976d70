-- Predictoor: whether the snapshot knows the predictoor $1 (rows in serve_pd).
SELECT count(*) FROM serve_pd WHERE user = $1
