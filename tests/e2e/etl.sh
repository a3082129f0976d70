#!/usr/bin/env bash
# etl update / rebuild / drop, raw drop and update through the binary, on the reference fixtures (raw
# import) and on the simulated network: exact summary lines, exit statuses, bad input (no raw data,
# bad times, missing options, a rollback into the future), an injected failure and a SIGKILL.
#
# etl.sh PREDLAKE_BINARY [SECTION]: SECTION is fixtures or sim (CTest runs each as its own test), or
# all (the default). Exits 77 (skipped) when the reference fixtures are missing (fixtures section).
set -euo pipefail
sections="fixtures sim"
source "$(dirname "$0")/lib.sh" etl "$@"

# expect_err TEXT: stderr is exactly TEXT.
expect_err() {
  [ "$(cat err.txt)" = "$1" ] || fail "stderr was:
$(cat err.txt)
expected:
$1"
}
# sql SQL: one value.
sql() { "$bin" -q query "$1" --format csv | tail -n +2; }

# No export after the publishes: the ledger checks below list the ETL's own runs.
cat > ppss.yaml <<'EOF'
lake_ss:
  lake_dir: lake
  st_timestr: 2024-07-26
  fin_timestr: now
  network: sim
  export_after_publish: false
sim_ss:
  seed: 7
  now: 2024-07-26_02:00
  indexing_lag: 30s
  start: 2024-07-25
  predictoors: 12
  pairs: [BTC/USDT, ETH/USDT]
  timeframes: [5m, 1h]
EOF

section_fixtures() {
need_fixtures || return 0
# No lake yet: the ETL changes only what is there, so it creates nothing.
run 3 etl update
expect_err "predlake: no lake at lake (run \`predlake update\` to create it)"
[ ! -e lake ] || fail "etl update on a missing lake created it"
# A lake without the ETL's raw inputs: a clear error, recorded as a failed run.
printf 'lake_ss:\n  lake_dir: lake_slots\n  export_after_publish: false\n' > slots.yaml
run 0 -q -c slots.yaml raw import "$fixtures/pdr_slots.csv" --from 2024-07-26 --to 2024-07-26_02:00
run 3 -c slots.yaml etl update
expect_err "predlake: raw tables pdr_predictions, pdr_truevals, pdr_payouts, pdr_subscriptions have no watermark yet (run \`predlake raw update\` or \`predlake raw import\` first)"
[ "$("$bin" -q -c slots.yaml query "SELECT string_agg(status, '/' ORDER BY run_id) FROM predlake_runs" --format csv | tail -1)" = "succeeded/failed" ] \
  || fail "the failed run is not recorded"

run 0 -q raw import "$fixtures" --from 2024-07-26 --to 2024-07-26_02:00

run 0 etl update --to 2024-07-26_00:40
expect_err "predlake: etl update: [2024-07-26T00:00:00Z, 2024-07-26T00:40:00Z): predictions 741 new, 0 updated; slots 100 new, 0 updated; checkpoint 2024-07-26T00:40:00Z (frontier 2024-07-26T02:00:00Z) run=2"
[ "$(sql "SELECT count(*) FILTER (WHERE payout IS NULL) || '/' || count(payout) FROM bronze_pdr_predictions")" = "209/532" ] \
  || fail "first 40 minutes: $(sql "SELECT count(*) FROM bronze_pdr_predictions")"

run 0 etl update
grep -q "^predlake: etl update: \[2024-07-26T00:40:00Z, 2024-07-26T02:00:00Z): predictions 1628 new, " err.txt \
  || fail "second update: $(cat err.txt)"
[ "$(sql "SELECT count(*) || '/' || count(payout) FROM bronze_pdr_predictions")" = "2369/2020" ] \
  || fail "after the second update: $(sql "SELECT count(*) FROM bronze_pdr_predictions")"

run 0 etl update
expect_err "predlake: nothing to do: the checkpoint 2024-07-26T02:00:00Z is not before the frontier 2024-07-26T02:00:00Z (held back by pdr_predictions) run=4"

# -q: nothing on stderr.
run 0 -q etl update
[ ! -s err.txt ] || fail "-q printed: $(cat err.txt)"

# Bad input changes nothing.
run 2 etl drop --from yesterdayish
grep -q "^predlake: --from: cannot parse time 'yesterdayish'" err.txt || fail "bad --from: $(cat err.txt)"
run 2 etl drop
grep -q "from" err.txt || fail "missing --from: $(cat err.txt)"
run 2 etl update --to 2024-13-01
run 2 raw drop --from nonsense
run 2 etl update --bogus
[ "$(sql "SELECT checkpoint_ms FROM predlake_checkpoint")" = "1721959200000" ] || fail "bad input moved the checkpoint"

# A rollback into the future changes nothing, and says so.
run 0 etl drop --from 2024-07-27
expect_err "predlake: nothing to roll back: 2024-07-27T00:00:00Z is not before the checkpoint 2024-07-26T02:00:00Z run=6"

run 0 etl drop --from 2024-07-26_01:00
grep -q "^predlake: etl drop: checkpoint 2024-07-26T02:00:00Z -> 2024-07-26T01:00:00Z: predictions 0 new, [0-9]* updated, 1196 deleted" err.txt \
  || fail "etl drop: $(cat err.txt)"
[ "$(sql "SELECT count(*) FROM bronze_pdr_predictions")" = "1173" ] || fail "after the drop"

run 0 etl rebuild
grep -q "^predlake: etl rebuild: \[2024-07-26T00:00:00Z, 2024-07-26T02:00:00Z): predictions 2369 new" err.txt \
  || fail "rebuild: $(cat err.txt)"

# raw drop pulls the checkpoint back with the watermarks.
run 0 raw drop --from 2024-07-26_01:30
grep -q "^predlake: raw drop: deleted [0-9]* raw rows from 2024-07-26T01:30:00Z; built tables rolled back (checkpoint 2024-07-26T02:00:00Z -> 2024-07-26T01:30:00Z: predictions" err.txt \
  || fail "raw drop: $(cat err.txt)"
[ "$(grep -o "raw drop:" err.txt | wc -l)" -eq 1 ] || fail "raw drop names itself twice: $(cat err.txt)"
[ "$(sql "SELECT checkpoint_ms FROM predlake_checkpoint")" = "1721957400000" ] || fail "raw drop checkpoint"
[ "$(sql "SELECT max(timestamp) < 1721957400000 FROM pdr_predictions")" = "true" ] || fail "raw drop rows"

# An injected failure and a SIGKILL leave everything as it was; the next run succeeds.
run 0 -q raw import "$fixtures" --from 2024-07-26_01:30 --to 2024-07-26_02:00
before="$(sql "SELECT checkpoint_ms || ' ' || (SELECT count(*) FROM bronze_pdr_predictions) FROM predlake_checkpoint")"
PREDLAKE_FAIL_AT=publish_bronze run 70 etl update
grep -q "injected failure at ETL step publish_bronze" err.txt || fail "injected failure: $(cat err.txt)"
rc=0
(PREDLAKE_KILL_AT=compute_predictions "$bin" -q etl update > /dev/null; exit $?) 2> /dev/null || rc=$?
[ "$rc" -eq 137 ] || fail "the killed etl update exited $rc"
after="$(sql "SELECT checkpoint_ms || ' ' || (SELECT count(*) FROM bronze_pdr_predictions) FROM predlake_checkpoint")"
[ "$before" = "$after" ] || fail "a failed or killed run changed the lake: $before -> $after"
run 0 etl update
[ "$(sql "SELECT string_agg(command || ':' || status, '/' ORDER BY run_id) FROM predlake_runs WHERE run_id > 9")" \
  = "raw import:succeeded/etl update:failed/etl update:aborted/etl update:succeeded" ] \
  || fail "ledger: $(sql "SELECT string_agg(command || ':' || status, '/' ORDER BY run_id) FROM predlake_runs")"
[ "$(sql "SELECT count(*) || '/' || count(payout) FROM bronze_pdr_predictions")" = "2369/2020" ] || fail "after recovery"
[ "$(sql "SELECT count(*) FROM duckdb_tables() WHERE table_name LIKE 'etl_stage%'")" = "0" ] || fail "staging left"

}

# update on the simulated network: raw update, then etl update, into a fresh lake.
section_sim() {
sed -i 's/lake_dir: lake/lake_dir: simlake/' ppss.yaml
run 0 update
grep -q "^predlake: raw update on sim: " err.txt || fail "update (raw): $(cat err.txt)"
grep -q "^predlake: etl update: \[2024-07-26T00:00:00Z, 2024-07-26T01:59:30Z): predictions [1-9][0-9]* new" err.txt \
  || fail "update (etl): $(cat err.txt)"
[ "$(sql "SELECT (SELECT count(*) FROM bronze_pdr_predictions) = (SELECT count(*) FROM pdr_predictions)")" = "true" ] \
  || fail "update built a partial table"
run 2 update --every 0s
}

run_sections
