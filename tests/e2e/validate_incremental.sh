#!/usr/bin/env bash
# validate --incremental through the binary, on a lake of the simulated network: the first run checks
# everything and records its mark; after an update the next run checks what changed (its report says so, in
# tests/e2e/expected/validate); a failure (a killed rebuild's staging table) exits 1 with one line on stderr and
# keeps the mark; bad input (a missing lake, a bad format) is one line, non-zero, nothing written. Set
# UPDATE_EXPECTED=1 to rewrite the expected files instead of comparing.
set -euo pipefail
source "$(dirname "$0")/lib.sh" validate_incremental "$@"
expected="$src/tests/e2e/expected/validate"

# A small world and no export after the publishes: the checks read the lake, not its snapshots.
config() {
  cat > ppss.yaml <<YAML
lake_ss:
  lake_dir: lake
  st_timestr: 2024-07-26
  export_after_publish: false
sim_ss:
  now: $1
  start: 2024-07-25
  predictoors: 4
  pairs: BTC/USDT ETH/USDT
YAML
}
mark() { "$bin" -q query "SELECT value FROM predlake_meta WHERE key = 'validate_mark'" --format csv; }

# ---- Bad input first: no lake yet (nothing is created), an unknown format.
config 2024-07-26_01:00
run 3 validate --incremental
[ ! -s out.txt ] && [ "$(wc -l < err.txt)" -eq 1 ] || fail "missing lake: $(cat out.txt err.txt)"
grep -q '^predlake: no lake at lake' err.txt || fail "missing lake: $(cat err.txt)"
[ ! -e lake ] || fail "validate --incremental created the missing lake"
run 2 validate --incremental --format xml
[ ! -s out.txt ] && [ "$(wc -l < err.txt)" -eq 1 ] || fail "bad format: $(cat out.txt err.txt)"

# ---- The first run checks everything and records its mark.
run 0 -q update
run 0 validate --incremental
grep -q 'no earlier incremental run; checking everything' err.txt || fail "first run: $(cat err.txt)"
grep -q 'incremental:' out.txt && fail "the first run is not a full one"
tail -1 out.txt | grep -q '^validate: all 18 checks passed' || fail "first run: $(tail -1 out.txt)"
first_mark="$(mark)"
[ "$(echo "$first_mark" | wc -l)" -eq 2 ] || fail "no mark recorded: $first_mark"

# ---- After an update: what changed since the mark.
config 2024-07-26_02:00
run 0 -q update
run 0 validate --incremental
grep -q 'what changed since run ' err.txt || fail "second run: $(cat err.txt)"
awk '/^check/ || /^[a-z_]+ +(pass|FAIL|info|skipped) / { print $1, $2 }' out.txt > status.txt
tail -1 out.txt >> status.txt
cp status.txt out.txt
check incremental.txt
[ "$(mark)" != "$first_mark" ] || fail "the mark did not move"
run 0 validate --incremental --format json
python3 -c 'import json; d = json.load(open("out.txt")); assert d["ok"]' 2>/dev/null \
  || [ ! -x "$(command -v python3)" ] || fail "validate --incremental --format json"

# ---- A failure: a rebuild killed before its commit leaves its staged table; exit 1, one line on stderr, the mark stays.
config 2024-07-26_03:00
run 0 -q raw update
before="$(mark)"
set +e
(PREDLAKE_KILL_AT=commit "$bin" -q etl rebuild > /dev/null; exit $?) 2> /dev/null
rc=$?
set -e
[ "$rc" -eq 137 ] || fail "the killed etl rebuild exited $rc"
run 1 -q validate --incremental
[ "$(wc -l < err.txt)" -eq 1 ] || fail "failure is not one line: $(cat err.txt)"
grep -q 'orphan_staging_tables' err.txt || fail "failure: $(cat err.txt)"
[ "$(mark)" = "$before" ] || fail "a failed run moved the mark"
# The next ETL run cleans up; the next incremental run passes and moves the mark.
run 0 -q etl update
run 0 validate --incremental
[ "$(mark)" != "$before" ] || fail "the mark did not move after the repair"
echo "validate_incremental: ok"
