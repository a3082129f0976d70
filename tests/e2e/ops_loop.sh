#!/usr/bin/env bash
# `update --every` through the binary on the simulated network: runs repeat, readers keep working between
# runs, SIGTERM between runs or during one stops the loop with exit 143 (128 + SIGTERM) and nothing left "running" (the
# run in progress finishes or rolls back, and the next update recovers), a second writer meeting the
# loop is refused with exit 4 naming it, and a bad duration is a usage error.
#
# ops_loop.sh PREDLAKE_BINARY [SECTION]: SECTION is loop or sigterm (CTest runs each as its own test),
# or all (the default).
set -euo pipefail
sections="loop sigterm"
source "$(dirname "$0")/lib.sh" ops_loop "$@"
loop_pid=""
on_exit() {
  if [ -n "$loop_pid" ] && kill -0 "$loop_pid" 2>/dev/null; then
    kill -TERM "$loop_pid"
    wait "$loop_pid" || true
  fi
}

# The default export after each publish: a reader that meets a run holding the lake reads the
# snapshot (without it, a reader on a loaded machine could wait out its 2 s against run after run:
# once 107 s for this section).
cat > ppss.yaml <<'YAML'
lake_ss:
  lake_dir: lake
  st_timestr: 3 hours ago
sim_ss:
  seed: 11
  now: 2024-07-26_02:00
  predictoors: 10
YAML

section_loop() {
# Bad durations: usage errors before anything is opened.
for bad in 0s 5 soon -1m; do
  set +e
  "$bin" update --every "$bad" > out.txt 2> err.txt
  rc=$?
  set -e
  [ "$rc" -eq 2 ] || fail "--every $bad exited $rc"
  [ "$(wc -l < err.txt)" -eq 1 ] || fail "--every $bad: error is not one line"
  [ ! -e lake ] || fail "--every $bad created the lake"
done

# succeeded_runs: how many runs of the loop succeeded, read while the loop runs. A reader may find no
# lake yet (exit 3, before the first run creates it) or wait out a run and give up (exit 4, when a run is
# longer than its 2 s wait); anything else is a failure.
succeeded_runs() {
  set +e
  "$bin" -q runs --limit 0 --format csv > runs.csv 2> runs.err
  local rc=$?
  set -e
  case "$rc" in
    0) grep -c ',update,succeeded,' runs.csv || true ;;
    3) grep -q 'no lake at\|is empty' runs.err || fail "runs while the loop ran: $(cat runs.err)"; echo 0 ;;
    4) grep -q '`update`' runs.err || fail "busy message does not name the loop: $(cat runs.err)"; echo 0 ;;
    *) fail "runs while the loop ran exited $rc: $(cat runs.err)" ;;
  esac
}

# ---- A loop that keeps the lake fresh; readers are answered while it runs.
"$bin" update --every 1s > loop.out 2> loop.err &
loop_pid=$!
# Wait for three runs on the loop's own log (a reader polling the lake would keep the loop's writer
# waiting for the file), then count them in the ledger.
for _ in $(seq 1 1200); do
  [ "$(grep -c 'run finished' loop.err || true)" -ge 3 ] && break
  kill -0 "$loop_pid" 2>/dev/null || fail "the loop died: $(cat loop.err)"
  nap 0.05
done
# A reader waits 2 s for the lock; it may meet a long run (exit 4, counted as 0) and try again.
n=0
for _ in $(seq 1 10); do
  n="$(succeeded_runs)"
  [[ "$n" =~ ^[0-9]+$ ]] || fail "could not count runs"
  [ "$n" -ge 3 ] && break
done
[ "$n" -ge 3 ] || fail "fewer than 3 succeeded runs in the ledger: $(cat loop.err)"
# between_runs WHAT ARGS...: a reader gets in between the loop's runs. It waits 2 s for the lock; on a
# loaded machine a run can take longer (exit 4), so it may try again, a few times.
between_runs() {
  local what="$1" rc; shift
  for _ in $(seq 1 10); do
    rc=0
    "$bin" -q "$@" > /dev/null 2> reader.err || rc=$?
    [ "$rc" -eq 0 ] && return 0
    [ "$rc" -eq 4 ] || fail "$what while the loop ran exited $rc: $(cat reader.err)"
  done
  fail "$what never got in between the loop's runs: $(cat reader.err)"
}
between_runs describe describe
between_runs query query "SELECT count(*) FROM bronze_pdr_predictions"

# A second writer is refused at once, naming the loop (retried while the loop holds the lock between
# runs is not possible: the lock is free then, so try until we meet it holding).
refused=0
for _ in $(seq 1 50); do
  set +e
  "$bin" -q raw drop --from 2024-07-26_01:00 > /dev/null 2> err.txt
  rc=$?
  set -e
  if [ "$rc" -eq 4 ]; then refused=1; break; fi
done
if [ "$refused" -eq 1 ]; then
  grep -q "\`update\`" err.txt || fail "busy message does not name the loop: $(cat err.txt)"
fi

kill -TERM "$loop_pid"
set +e
wait "$loop_pid"
rc=$?
set -e
loop_pid=""
[ "$rc" -eq 143 ] || fail "loop exit $rc after SIGTERM: $(tail -3 loop.err)"
tail -1 loop.err | grep -q "stopped by SIGTERM" || fail "last line: $(tail -1 loop.err)"
grep -q 'run finished' loop.err || fail "no run log: $(cat loop.err)"
"$bin" -q runs --limit 0 --format csv > runs.csv
! grep -q ',running,' runs.csv || fail "a run left running: $(cat runs.csv)"
"$bin" -q validate > validate.out || fail "validate after the loop: $(cat validate.out)"
}

# ---- SIGTERM in the middle of a long first run: it finishes or rolls back, nothing is left running.
section_sigterm() {
rm -rf lake
sed -i 's/st_timestr: 3 hours ago/st_timestr: 12 hours ago/' ppss.yaml
"$bin" --log-format json update --every 1h > loop.out 2> loop.err &
loop_pid=$!
# The signal lands inside the first run: once the lake exists (a slow start, as under the
# sanitizers on a loaded machine, must not leave it before the lake), half a second later.
for _ in $(seq 300); do
  [ -s lake/lake.duckdb ] && break
  kill -0 "$loop_pid" 2>/dev/null || break
  nap 0.1
done
sleep 0.5
# A loop that already ended answers the wait below with its own status, which says why.
kill -TERM "$loop_pid" 2>/dev/null || true
set +e
wait "$loop_pid"
rc=$?
set -e
loop_pid=""
[ "$rc" -eq 143 ] || fail "loop exit $rc after SIGTERM during a run: $(tail -3 loop.err)"
while read -r line; do
  case "$line" in \{*\}) ;; *) fail "not a JSON log line: $line" ;; esac
done < loop.err
# On a loaded machine the signal can land while the lake is being created, before its ledger: the
# lake is then empty (`runs` says so, exit 3) and the next update fills it. Or between the ledger and
# the run's first row: `runs` then lists no run. (That case ended the section with a bare exit 1: the
# grep below found no run, and pipefail made its failure the script's.)
set +e
"$bin" -q runs --limit 0 --format csv > runs.csv 2> runs.err
rc=$?
set -e
if [ "$rc" -eq 3 ] && grep -q 'is empty' runs.err; then
  interrupted="none (the lake was still being created)"
else
  [ "$rc" -eq 0 ] || fail "runs after SIGTERM exited $rc: $(cat runs.err)"
  ! grep -q ',running,' runs.csv || fail "a run left running after SIGTERM: $(cat runs.csv)"
  if [ "$(wc -l < runs.csv)" -le 1 ]; then
    interrupted="none (the run had not begun)"
  else
    interrupted="$(grep -o ',update,[a-z]*,' runs.csv | head -1 | cut -d, -f3 || true)"
    case "$interrupted" in aborted|succeeded) ;; *) fail "interrupted run: '$interrupted': $(cat runs.csv)" ;; esac
  fi
fi
# The interrupted lake is consistent already (rows at a watermark are informational), and the next run
# picks up where the interrupted one stopped.
# A signal that lands before the first table was stored (a slow build) leaves tables without a
# watermark after an aborted run (raw_tables_never_fetched); one that lands after the events were
# stored and before their candles leaves the candle streams behind them (ohlcv_streams_behind).
# validate says so, and nothing else. (Its "validation failed" line on stderr goes to validate.err:
# in the log of a passing run it read as the failure.)
[ "$rc" -eq 3 ] || "$bin" -q validate > validate.out 2> validate.err ||
  tail -1 validate.out |
  grep -Eq '^validate: [12] of [0-9]+ checks failed:( (raw_tables_never_fetched|ohlcv_streams_behind))+( \(|$)' ||
  fail "validate right after an interrupted run: $(cat validate.out validate.err runs.csv)"
"$bin" -q update 2> update.err || fail "update after the interrupted loop: $(cat update.err)"
"$bin" -q validate > validate.out ||
  fail "validate after an interrupted run and an update: $(cat validate.out)
$("$bin" -q runs --limit 0 --format csv 2>&1)"
echo "ops_loop: the run interrupted by SIGTERM: $interrupted"
}

run_sections
