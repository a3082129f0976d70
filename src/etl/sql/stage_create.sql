-- Fresh staging tables for one run (the runner has dropped whatever a crashed run left), filled
-- outside the publish transaction; only the publish step touches the live tables. Every name starts
-- with etl_stage_ so that leftovers are easy to find. They are TEMP tables, local to the connection
-- and never written to the lake's log, except a rebuild's staged bronze rows (stage_bronze*.sql).
-- Parameters: S, CUT, ALL_GROUPS.

-- Every submission of a prediction with timestamp >= S: the rows of pdr_predictions (each its
-- ID's latest version) and the superseded versions of re-submitted ones
-- (predlake_prediction_versions, few). is_first: the ID's first submission (from S on);
-- prev_stake: the stake a re-submission replaced; first_timestamp: when the ID was first
-- submitted; superseded_at: the next version's time (NULL for the latest). The version of a
-- prediction as of X is its submission with timestamp < X AND coalesce(superseded_at >= X, true).
-- Filters on timestamp and slot reach pdr_predictions' scan.
CREATE OR REPLACE TEMP VIEW etl_view_submissions AS
  SELECT p.*, CAST(NULL AS BIGINT) AS superseded_at, v.ID IS NULL AS is_first,
         v.last_stake AS prev_stake, coalesce(v.first_timestamp, p.timestamp) AS first_timestamp
  FROM pdr_predictions AS p
  LEFT JOIN (SELECT ID, arg_max(stake, timestamp) AS last_stake, min(timestamp) AS first_timestamp
             FROM predlake_prediction_versions
             WHERE timestamp >= ${S}
             GROUP BY ID) AS v ON v.ID = p.ID
  WHERE p.timestamp >= ${S}
  UNION ALL BY NAME
  SELECT *,
         lag(stake) OVER (PARTITION BY ID ORDER BY timestamp) AS prev_stake,
         row_number() OVER (PARTITION BY ID ORDER BY timestamp) = 1 AS is_first,
         min(timestamp) OVER (PARTITION BY ID) AS first_timestamp
  FROM predlake_prediction_versions
  WHERE timestamp >= ${S};

-- Update events of the window, reduced to one row per target slot / prediction.
CREATE TEMP TABLE etl_stage_slot_events (
  slot_id VARCHAR,
  slot BIGINT,
  n_predictions BIGINT,
  predicted_stake DECIMAL(38, 18),
  max_prediction_timestamp BIGINT,
  has_trueval BOOLEAN,
  truevalue BOOLEAN,
  revenue DECIMAL(38, 18),
  roundSumStakesUp DECIMAL(38, 18),
  roundSumStakes DECIMAL(38, 18),
  trueval_timestamp BIGINT
);
CREATE TEMP TABLE etl_stage_payout_events (
  ID VARCHAR,
  slot BIGINT,
  payout DECIMAL(38, 18),
  predvalue BOOLEAN,
  stake DECIMAL(38, 18),
  timestamp BIGINT
);
-- Re-submissions of the window (a later version of a prediction made earlier), one row per
-- prediction: its latest version in the window.
CREATE TEMP TABLE etl_stage_resubmit_events (
  ID VARCHAR,
  slot BIGINT,
  stake DECIMAL(38, 18),
  timestamp BIGINT
);
-- Folded slots whose trueval or status changed: what their predictions must take over.
CREATE TEMP TABLE etl_stage_slot_changes (
  slot_id VARCHAR,
  slot BIGINT,
  truevalue BOOLEAN,
  revenue DECIMAL(38, 18),
  status VARCHAR,
  status_timestamp BIGINT
);

-- Slots to compute from raw as of the run's end: new ones, or (rollback) ones to recompute.
CREATE TEMP TABLE etl_stage_slot_keys (ID VARCHAR, slot BIGINT, is_new BOOLEAN);

-- The live prediction rows that staged rows replace, as they are now.
CREATE TEMP TABLE etl_stage_replaced AS FROM bronze_pdr_predictions LIMIT 0;

-- Gold: the signed contributions of the changed predictions per group, the groups to replace,
-- and their new rows.
CREATE TEMP TABLE etl_stage_gold_predictoor_delta AS
  SELECT * EXCLUDE (accuracy, run_id) FROM gold_predictoor_daily LIMIT 0;
CREATE TEMP TABLE etl_stage_gold_predictoor_keys (day DATE, user VARCHAR, contract VARCHAR);
CREATE TEMP TABLE etl_stage_gold_predictoor AS FROM gold_predictoor_daily LIMIT 0;
CREATE TEMP TABLE etl_stage_gold_feed_keys (day DATE, contract VARCHAR);
CREATE TEMP TABLE etl_stage_gold_feed AS FROM gold_feed_daily LIMIT 0;
CREATE TEMP TABLE etl_stage_gold_sales_keys (day DATE);
CREATE TEMP TABLE etl_stage_gold_sales AS FROM gold_feed_sales_daily LIMIT 0;

-- The tables as they will be after the publish: the live rows that stay plus the staged rows.
-- Later steps read these, so they see old and new rows in one query; filters on slot and day reach
-- the live tables' scans.
CREATE OR REPLACE TEMP VIEW etl_view_slots AS
  SELECT * FROM bronze_pdr_slots AS l
  WHERE l.timestamp < ${CUT}
    AND NOT EXISTS (SELECT 1 FROM etl_stage_slots AS s WHERE s.ID = l.ID)
  UNION ALL
  SELECT * EXCLUDE (is_new) FROM etl_stage_slots;

CREATE OR REPLACE TEMP VIEW etl_view_gold_predictoor AS
  SELECT * FROM gold_predictoor_daily AS g
  WHERE ${ALL_GROUPS} = 0
    AND NOT EXISTS (
      SELECT 1 FROM etl_stage_gold_predictoor_keys AS k
      WHERE k.day = g.day AND k.user IS NOT DISTINCT FROM g.user
        AND k.contract IS NOT DISTINCT FROM g.contract)
  UNION ALL
  SELECT * FROM etl_stage_gold_predictoor;
