-- No feed's epoch length, for a WITH clause: an incremental payouts_without_prediction counts its orphans with it first, and reads the feeds' epochs only when it finds one.
feed_epochs AS (SELECT NULL::VARCHAR AS contract, NULL::BIGINT AS epoch_s WHERE FALSE)
