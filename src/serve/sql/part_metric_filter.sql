-- (Part of predictoors and feeds.) The filters on a row's period figures: at least $4 predictions,
-- at least $5 stake (decimal text), accuracy from $6 to $7 percent (a row without an accuracy is
-- out when either is set); NULL: no filter.
  ($4 IS NULL OR predictions >= $4)
  AND ($5 IS NULL OR stake >= CAST($5 AS DECIMAL(38, 18)))
  AND ($6 IS NULL OR accuracy >= CAST($6 AS DOUBLE) / 100)
  AND ($7 IS NULL OR accuracy <= CAST($7 AS DOUBLE) / 100)
