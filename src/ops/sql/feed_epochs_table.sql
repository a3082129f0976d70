-- The feeds' epoch lengths, computed once per validate into a TEMP table.
CREATE OR REPLACE TEMP TABLE validate_feed_epochs AS WITH ${feed_epochs_cte} SELECT * FROM feed_epochs
