#!/usr/bin/env bash
# describe, validate, query and runs through the binary, against expected output files in
# tests/e2e/expected/ops (volatile fields -- wall-clock times, durations, pids -- are normalised with sed).
# Bad input included: missing lake, bad SQL, unknown table, writes, bad format names, a busy lake held by a
# real second process. Set UPDATE_EXPECTED=1 to rewrite the expected files instead of comparing.
set -euo pipefail
source "$(dirname "$0")/lib.sh" ops_commands "$@"
expected="$src/tests/e2e/expected/ops"
need_fixtures

# Wall-clock times (the ledger's), durations and pids change from run to run; fixture times do not
# (they are all 2024-07-26). Tables holding such values are aligned on their width, so their spaces are
# collapsed: the runs tables, and describe's from "Last runs" on.
normalise() {
  sed -E \
    -e 's/20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z/&@/g' \
    -e 's/2024-07-2[56]T([0-9:.]+)Z@/2024-07-26T\1Z/g' \
    -e 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z@/TIME/g' \
    -e 's/[0-9]+\.[0-9]{3}s\b/D.DDDs/g' \
    -e 's/("(created_at_ms|started_at_ms|ended_at_ms|duration_ms|pid)": )[0-9]+/\1N/g' \
    -e 's/pid [0-9]+/pid N/g' \
    -e '/^Last runs/,$ { s/ +/ /g; s/-{2,}/--/g; }' \
    -e '/^run_id +command/,$ { s/ +/ /g; s/-{2,}/--/g; }'
}

# check_normalised NAME: normalised out.txt equals expected/NAME (or is written there).
check_normalised() {
  normalise < out.txt > "norm_$1"
  check "$1" "norm_$1"
}

# No export after the publishes: these commands read the lake itself (with a snapshot a busy lake
# would be read from it instead; tests/e2e/export.sh covers that).
cat > ppss.yaml <<'YAML'
lake_ss:
  lake_dir: lake
  st_timestr: 2024-07-26
  export_after_publish: false
YAML

# ---- A missing lake: describe shows the empty lake a first update would create (and says so on
# stderr, creating nothing); the other readers say so, exit 3.
run 0 describe
grep -q '^bronze_pdr_predictions ' out.txt || fail "describe on a missing lake lists no tables"
grep -q 'no lake at lake yet' err.txt || fail "describe on a missing lake: $(cat err.txt)"
[ ! -e lake ] || fail "describe created the missing lake"
for cmd in validate runs query; do
  if [ "$cmd" = query ]; then run 3 query "SELECT 1"; else run 3 "$cmd"; fi
  one_line_error "$cmd on a missing lake"
  grep -q '^predlake: no lake at lake ' err.txt || fail "$cmd: $(cat err.txt)"
done

# ---- A lake from the mainnet fixtures. The window is declared up to 02:00:00.001 so that the slots of
# 02:00:00 (which the files hold) are inside it.
run 0 -q raw import "$fixtures" --from 2024-07-26 --to 1721959200001

run 0 describe
check_normalised describe.txt
run 0 describe --format json
check_normalised describe.json
python3 -c 'import json,sys; json.load(open("out.txt"))' 2>/dev/null || [ ! -x "$(command -v python3)" ] \
  || fail "describe --format json is not one JSON document"

run 0 validate
check_normalised validate.txt
run 0 validate --format json
check_normalised validate.json

run 0 query "SELECT ID, stake, payout, predvalue FROM pdr_payouts ORDER BY ID LIMIT 3"
check_normalised query_table.txt
run 0 query "SELECT NULL AS n, '' AS e, 'a,b' AS q, 1.50::DECIMAL(10,3) AS d, 0.1::DOUBLE AS f" --format csv
check_normalised query_null_empty.csv
run 0 query "SELECT pair, timeframe, count(*) AS n, sum(stake) AS stake FROM pdr_predictions GROUP BY ALL ORDER BY pair, timeframe LIMIT 4" --format json
check_normalised query.json
run 0 query "DESCRIBE pdr_slots" --format csv
check_normalised query_describe.csv

run 0 runs
check_normalised runs.txt
run 0 runs --format csv --limit 1
check_normalised runs.csv
run 0 runs --format json
check_normalised runs.json

# ---- Bad input: one line, the right exit status, nothing written.
run 3 query "SELEC 1"
one_line_error "bad SQL"
cp err.txt out.txt; check_normalised query_bad_sql.err
run 3 query "SELECT * FROM no_such_table"
one_line_error "unknown table"
cp err.txt out.txt; check_normalised query_unknown_table.err
run 2 query "DELETE FROM pdr_payouts"
one_line_error "write"
cp err.txt out.txt; check_normalised query_write.err
run 2 query "ATTACH 'other.duckdb' AS other"
one_line_error "attach"
[ ! -e other.duckdb ] || fail "ATTACH created a file"
run 2 query "SELECT 1; SELECT 2"
one_line_error "two statements"
run 0 query "SELECT count(*) AS n FROM pdr_payouts" --format csv
[ "$(cat out.txt)" = "$(printf 'n\n2349')" ] || fail "the refused DELETE changed the lake"
for cmd in describe validate runs query; do
  if [ "$cmd" = query ]; then run 2 query "SELECT 1" --format xml; else run 2 "$cmd" --format xml; fi
  one_line_error "$cmd --format xml"
done
cp err.txt out.txt; check_normalised bad_format.err
run 2 runs --limit -1
one_line_error "runs --limit -1"
run 2 query
one_line_error "query without SQL"

# ---- An ETL rebuild killed just before its publish commits leaves its staged bronze table and a "running" ledger row: validate fails (exit 1,
# report on stdout, one line on stderr) and runs shows the run still running. The next writer cleans up.
set +e
# (in a subshell whose stderr is discarded, so that bash's "Killed" notice goes there too)
(PREDLAKE_KILL_AT=commit "$bin" -q etl rebuild > /dev/null; exit $?) 2> /dev/null
rc=$?
set -e
[ "$rc" -eq 137 ] || fail "the killed etl rebuild exited $rc"
run 1 validate
# How many staging tables a run uses is the ETL's business: keep the check lines and the summary.
grep -E '^(check |[a-z_]+ +(pass|FAIL|info|skipped) |validate: )' out.txt \
  | sed -E 's/^(orphan_staging_tables +FAIL) +[0-9]+/\1 N/' > filtered.txt
mv filtered.txt out.txt
check_normalised validate_killed.txt
[ "$(wc -l < err.txt)" -eq 1 ] || fail "validate failure is not one line on stderr"
cp err.txt out.txt; check_normalised validate_killed.err
run 0 runs --format csv --limit 1
check_normalised runs_killed.csv
run 0 -q etl update
run 0 validate
check_normalised validate_built.txt
run 0 describe
# Gold tables' shapes belong to the ETL; the raw and bronze facts are pdr-backend's (2369 predictions).
grep -v '^gold_' out.txt > filtered.txt
mv filtered.txt out.txt
check_normalised describe_built.txt
run 0 runs --format csv
sed -E 's/gold_[a-z_]+ in=[0-9]+ out=[0-9]+( upd=[0-9]+)?( del=[0-9]+)?; //g' out.txt > filtered.txt
mv filtered.txt out.txt
check_normalised runs_built.csv
run 0 query "SELECT status, count(*) AS n, count(payout) AS with_payout FROM bronze_pdr_predictions GROUP BY ALL ORDER BY ALL"
check_normalised query_bronze.txt

# ---- A writer holds the lake (a real second process): readers wait up to 2 s, then exit 4 naming it.
start_holder "$work/lake" 20000
start=$(date +%s%N)
run 4 describe
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ "$elapsed_ms" -ge 1900 ] || fail "busy describe gave up after ${elapsed_ms} ms, not 2 s"
[ "$elapsed_ms" -lt 10000 ] || fail "busy describe took ${elapsed_ms} ms"
[ ! -s out.txt ] || fail "busy describe wrote to stdout"
grep -q 'waiting for the lake' err.txt || fail "no waiting notice: $(cat err.txt)"
grep -v 'waiting for the lake' err.txt > out.txt
[ "$(wc -l < out.txt)" -eq 1 ] || fail "busy error is not one line"
check_normalised busy.err
run 4 -q query "SELECT 1"
one_line_error "busy query with -q"
stop_holder

# A writer that lets go within the wait: the reader gets in.
"$holder_bin" "$work/lake" 700 > holder.out 2>&1 &
holder_pid=$!
for _ in $(seq 1 200); do
  [ -e lake/holder.ready ] && break
  nap 0.05
done
run 0 runs --format csv --limit 1
grep -q 'etl update,succeeded' out.txt || fail "runs after the writer let go: $(cat out.txt)"
wait "$holder_pid" || fail "the holder failed: $(cat holder.out)"
holder_pid=""

echo "ops_commands: ok"
