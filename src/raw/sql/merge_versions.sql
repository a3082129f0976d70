-- Every version known of the IDs in IDS, into ROWS, one per (ID, timestamp): stored in TABLE
-- (src 0, where STORED_RANGE holds), superseded in VERSIONS (src 1), staged in STAGE (src 2, its
-- values STAGED_VALUES); a stored copy wins over a staged one of the same time. The latest
-- version is the row (superseded_at NULL), each earlier one is superseded by the next; `stored`
-- says whether TABLE holds the ID.
CREATE OR REPLACE TEMP TABLE ${rows} AS
WITH cand AS (
  SELECT ${columns}, 0 AS src FROM ${table} AS stored
  WHERE ${stored_range} AND ID IN (SELECT ID FROM ${ids})
  UNION ALL
  SELECT ${columns}, 1 AS src FROM ${versions} WHERE ID IN (SELECT ID FROM ${ids})
  UNION ALL
  SELECT ${staged_values}, 2 AS src FROM ${stage} WHERE ID IN (SELECT ID FROM ${ids})),
one AS (SELECT DISTINCT ON (ID, timestamp) * FROM cand ORDER BY ID, timestamp, src)
SELECT *, lead(timestamp) OVER (PARTITION BY ID ORDER BY timestamp) AS superseded_at,
       bool_or(src = 0) OVER (PARTITION BY ID) AS stored
FROM one
