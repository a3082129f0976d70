-- /healthz: a read of the snapshot's files.
SELECT count(*) FROM gold_feed_daily
