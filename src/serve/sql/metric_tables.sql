-- serve_pd and serve_fd: the gold tables with the dashboard's columns (docs/serve.md), in memory.
CREATE TABLE serve_pd AS SELECT * FROM gold_predictoor_daily ORDER BY day;
CREATE TABLE serve_fd AS SELECT * FROM gold_feed_daily ORDER BY day;
