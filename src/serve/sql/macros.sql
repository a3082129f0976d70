-- Helpers of the page queries, made once per snapshot in its database (every request's connection
-- sees them). A period is two bound VARCHAR days, inclusive: $1 and $2 in every page query.

-- A day of the period.
CREATE MACRO serve_day_in(d, from_day, to_day) AS
  d BETWEEN CAST(from_day AS DATE) AND CAST(to_day AS DATE);

-- A unix second (a slot) of the period's days.
CREATE MACRO serve_second_in(s, from_day, to_day) AS
  (s >= (CAST(from_day AS DATE) - DATE '1970-01-01') * 86400
   AND s < (CAST(to_day AS DATE) - DATE '1970-01-01' + 1) * 86400);

-- Unix milliseconds as ISO 8601 text in UTC, to the second or to the millisecond.
CREATE MACRO serve_iso(ms) AS strftime(epoch_ms(CAST(ms AS BIGINT)), '%Y-%m-%dT%H:%M:%SZ');
CREATE MACRO serve_iso_ms(ms) AS strftime(epoch_ms(CAST(ms AS BIGINT)), '%Y-%m-%dT%H:%M:%S.%gZ');

-- An exact sum that is NULL as soon as one summed value is unknown (the cash columns).
CREATE MACRO serve_strict_sum(x) AS CASE WHEN count(x) = count(*) THEN sum(x) END;

-- The UTC day of a unix second.
CREATE MACRO serve_day(s) AS DATE '1970-01-01' + CAST(s // 86400 AS INTEGER);
