-- Feeds of pdr_slots whose epoch length is unknown.
WITH ${feed_epochs} SELECT count(DISTINCT lower(split_part(ID, '-', 1))) FROM pdr_slots WHERE lower(split_part(ID, '-', 1)) NOT IN (SELECT contract FROM feed_epochs)
