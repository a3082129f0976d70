-- The IDs of the staging table STAGE that need merging into TABLE, into IDS: stored already
-- (where STORED_RANGE holds; the fetch meets a stored version again, or a newer one), or staged
-- with more than one timestamp.
CREATE OR REPLACE TEMP TABLE ${ids} AS
SELECT s.ID FROM ${stage} AS s JOIN ${table} AS stored ON stored.ID = s.ID WHERE ${stored_range}
UNION SELECT ID FROM ${stage} GROUP BY ID HAVING count(DISTINCT timestamp) > 1
