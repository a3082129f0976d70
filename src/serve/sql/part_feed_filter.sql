-- (Part of predictoors and feeds.) The filters on a feed's pair ($8), timeframe ($9) and exchange
-- ($10) over rows with pair, timeframe and source; NULL: no filter. Case-insensitive; a pair's "-"
-- reads as "/".
  ($8 IS NULL OR lower(replace(pair, '-', '/')) = lower(replace($8, '-', '/')))
  AND ($9 IS NULL OR lower(timeframe) = lower($9))
  AND ($10 IS NULL OR lower(source) = lower($10))
