-- Bronze predictions with a payout but no predvalue or truevalue, canceled slots excepted.
SELECT ${id}, ${slot}, payout, predvalue, truevalue FROM ${table} WHERE payout IS NOT NULL AND (predvalue IS NULL OR truevalue IS NULL) AND ${not_canceled}${and_changed}
