#!/usr/bin/env bash
# Output that reads well (docs/operations.md, "query" > "Output"), through the binary: tables fit a
# terminal's width by cutting free text first and never a time or a name; control characters are
# escaped; JSON booleans are booleans and decimals strings; --limit and time and duration options are
# range checked (one line, exit 2, the lake unchanged). Expected output in tests/e2e/expected/output;
# set UPDATE_EXPECTED=1 to rewrite it.
set -euo pipefail
source "$(dirname "$0")/lib.sh" output "$@"
need_fixtures

# No export after the import: the commands here read the lake.
cat > ppss.yaml <<'YAML'
lake_ss:
  lake_dir: lake
  st_timestr: 2024-07-26
  export_after_publish: false
YAML
run 0 -q raw import "$fixtures" --from 2024-07-26 --to 1721959200001

# ---- Range checks: one line, exit 2, nothing written.
lake_sum() { md5sum lake/lake.duckdb | cut -c1-32; }
before="$(lake_sum)"
: > errors.txt
for args in "runs --limit -1" "runs --limit 99999999999999999999" "runs --limit x" "update --to ''" \
            "update --every ''" "update --every 0s" "update --every -5m" "raw update --to ''" \
            "etl update --to ''" "raw import $fixtures --from ''" "etl rebuild --to 'next tuesday'"; do
  set +e
  eval "\"\$bin\" $args" > out.txt 2> err.txt
  rc=$?
  set -e
  [ "$rc" -eq 2 ] || { cat err.txt >&2; fail "'$args' exited $rc, expected 2"; }
  [ ! -s out.txt ] || fail "'$args' wrote to stdout"
  [ "$(wc -l < err.txt)" -eq 1 ] || { cat err.txt >&2; fail "'$args': not one line"; }
  echo "$args -> $(cat err.txt)" | sed "s|$fixtures|FIXTURES|g" >> errors.txt
done
[ "$(lake_sum)" = "$before" ] || fail "a refused option changed the lake"
check range_errors.txt errors.txt

# ---- JSON: booleans, numbers, exact decimals as strings, times and text as strings, NULL.
run 0 query "SELECT true AS b, NULL::BOOLEAN AS nb, 42 AS i, 0.5::DOUBLE AS f, 'inf'::DOUBLE AS inf,
  1.50::DECIMAL(10, 2) AS d, 123456789012345678.000000000000000001::DECIMAL(38, 18) AS wide,
  TIMESTAMP '2024-07-26 00:05:00' AS ts, 'x' AS s" --format json
check types.json out.txt
run 0 query "SELECT ID, stake, payout FROM pdr_payouts ORDER BY ID LIMIT 1" --format json
python3 - out.txt <<'PY' 2>/dev/null || [ ! -x "$(command -v python3)" ] || fail "payout json: $(cat out.txt)"
import json, sys
row = json.load(open(sys.argv[1]))[0]
assert isinstance(row["stake"], str) and "." in row["stake"], row
PY

# ---- Control characters are escaped in tables (CSV keeps them, quoted).
run 0 query "SELECT 'a' || chr(10) || 'b' || chr(9) || 'c' || chr(27) || '[31mred' || chr(7) AS s, 1 AS n"
check control.txt out.txt

# ---- A terminal 60 columns wide (a pseudo-terminal from script(1); COLUMNS sets the width).
# script(1) runs its command with $SHELL, which may be unset or not bash (CI), so the command is a
# file of its own rather than a quoted string.
if command -v script > /dev/null; then
  sql="SELECT 'bronze_pdr_predictions' AS table_name, TIMESTAMP '2024-07-26 00:05:00' AS at,
    'a long free text note that goes on and on about the row' AS note,
    '0xabc0123456789-1721952000-0xdef' AS id"
  printf '#!/bin/sh\nexec "$TTY_BIN" query "$(cat query.sql)"\n' > tty_query.sh
  printf '%s' "$sql" > query.sql
  chmod +x tty_query.sh
  TTY_BIN="$bin" COLUMNS=60 script -qec ./tty_query.sh /dev/null < /dev/null | tr -d '\r' > tty.txt
  check tty60.txt tty.txt
  while IFS= read -r line; do
    [ "$(printf '%s' "$line" | LC_ALL=C.UTF-8 wc -m)" -le 60 ] || fail "a line is wider than 60: $line"
  done < tty.txt
  grep -q 'bronze_pdr_predictions  2024-07-26 00:05:00' tty.txt || fail "a name or time was cut"
  # Too narrow for the name and the time: the line overflows rather than cut them.
  TTY_BIN="$bin" COLUMNS=30 script -qec ./tty_query.sh /dev/null < /dev/null | tr -d '\r' > tty.txt
  check tty30.txt tty.txt
fi
echo "output: ok"
