#!/usr/bin/env bash
# Safe to operate (issue 10), through the binary on the simulated network: `~` in lake_dir, first-run
# mistakes and paths that cannot work (one line, exit 2 or 3, the lake untouched and nothing created),
# failed output (/dev/full, a pipe closed early), signals in the middle of a phase (exit 128 + signal,
# the run recorded as aborted by the cancel, live tables and checkpoint unchanged), and one loop at a
# time. The messages and exit statuses are compared with tests/e2e/expected/safety/SECTION.txt
# (UPDATE_EXPECTED=1 rewrites them).
#
# safety.sh PREDLAKE_BINARY [SECTION]: SECTION is paths, mistakes, output, fulldisk, signals or loop
# (CTest runs each as its own test), or all (the default). fulldisk mounts a 3 MB tmpfs (root only;
# skipped otherwise).
set -euo pipefail
sections="paths mistakes output fulldisk signals loop"
source "$(dirname "$0")/lib.sh" safety "$@"
bg_pid=""
mounted=""
on_exit() {
  if [ -n "$bg_pid" ] && kill -0 "$bg_pid" 2>/dev/null; then
    kill -KILL "$bg_pid" 2>/dev/null || true
    wait "$bg_pid" 2>/dev/null || true
  fi
  if [ -n "$mounted" ]; then umount "$mounted" 2>/dev/null || true; fi
}

# Wall-clock times, pids and the work folder change from run to run; the simulated times (2024) do not.
normalise() {
  sed -E -e "s#$work#WORK#g" \
    -e 's/20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z/&@/g' \
    -e 's/2024-07-2[56]T([0-9:.]+)Z@/2024-07-26T\1Z/g' \
    -e 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z@/TIME/g' \
    -e 's/pid [0-9]+/pid N/g' -e 's/ run=[0-9]+//g'
}
transcript="$work/transcript.txt"
: > "$transcript"
note() { echo "# $*" >> "$transcript"; }
# t WANT_RC ARGS...: runs the binary (stdout in out.txt, stderr in err.txt), checks the exit status and
# adds the command, its status and its stderr to the transcript.
t() {
  local want="$1" rc=0
  shift
  "$bin" "$@" > out.txt 2> err.txt || rc=$?
  { echo "\$ predlake $*"; echo "exit $rc"; normalise < err.txt; } >> "$transcript"
  [ "$rc" -eq "$want" ] || fail "'predlake $*' exited $rc, expected $want: $(cat err.txt)"
}
# One error line on stderr, nothing on stdout.
one_line() {
  [ ! -s out.txt ] || fail "$1: wrote to stdout: $(head -3 out.txt)"
  [ "$(wc -l < err.txt)" -eq 1 ] || fail "$1: error is not one line: $(cat err.txt)"
}
# state CONFIG: what a failed or refused command must leave as it was (the ledger, the watermarks,
# the checkpoint, the built rows).
state() {
  "$bin" -q -c "$1" query "SELECT (SELECT count(*) FROM predlake_runs) || ' runs; ' || (SELECT coalesce(string_agg(table_name || '=' || watermark_ms, ' ' ORDER BY table_name), '') FROM predlake_watermarks) || '; checkpoint ' || coalesce((SELECT checkpoint_ms::VARCHAR FROM predlake_checkpoint), 'none') || '; bronze ' || (SELECT count(*) FROM bronze_pdr_predictions)" --format csv | tail -1
}
# No export after the publishes: the walks here stop and check the writing command itself (its
# run the newest in the ledger); tests/e2e/export.sh has the export's own faults.
write_config() {  # write_config FILE LAKE_DIR ST [FIN]
  {
    echo "lake_ss:"
    echo "  lake_dir: $2"
    echo "  st_timestr: $3"
    [ -z "${4:-}" ] || echo "  fin_timestr: $4"
    echo "  export_after_publish: false"
    echo "sim_ss:"
    echo "  seed: 5"
    echo "  now: 2024-07-26_02:00"
    echo "  predictoors: ${PREDICTOORS:-6}"
  } > "$1"
}

section_paths() {
mkdir home
write_config ppss.yaml "~/x" 2024-07-26_01:00
note "lake_dir ~/x under HOME=WORK/paths/home: lock and database both in WORK/paths/home/x"
HOME="$PWD/home" t 0 -q update --to 2024-07-26_01:10
[ -f home/x/lake.duckdb ] && [ -f home/x/lake.lock ] || fail "lake not in \$HOME/x: $(find . | head -20)"
[ ! -e '~' ] || fail "a folder named ~ was left in the working directory"
HOME="$PWD/home" "$bin" config show | grep '^lake_ss.lake_dir' | normalise | tr -s ' ' >> "$transcript"
HOME="$PWD/home" t 0 -q runs --format csv
[ "$(grep -c ',update,succeeded,' out.txt)" -eq 1 ] || fail "the reader does not see the run: $(cat out.txt)"
note "HOME unset: a config error"
env -u HOME "$bin" describe > out.txt 2> err.txt && fail "describe without HOME succeeded" || true
{ echo "\$ predlake describe   (HOME unset)"; normalise < err.txt; } >> "$transcript"
one_line "HOME unset"
note "a ~ elsewhere is a plain name, for the lock and the database alike"
write_config tilde.yaml "~y" 2024-07-26_01:00
HOME="$PWD/home" t 0 -q -c tilde.yaml update --to 2024-07-26_01:10
[ -f '~y/lake.duckdb' ] && [ -f '~y/lake.lock' ] || fail "~y: $(find . | head -20)"
[ ! -e home/y ] || fail "DuckDB expanded ~y into the home folder"

note "a lake_dir that is a file, or a path through a file: exit 2 for readers and writers"
echo keep > afile
write_config file.yaml afile 2024-07-26_01:00
write_config through.yaml afile/lake 2024-07-26_01:00
for cmd in "describe" "runs" "validate" "update --to 2024-07-26_01:10" "etl update" "raw drop --from 2024-07-26_01:05"; do
  # shellcheck disable=SC2086
  t 2 -c file.yaml $cmd
  one_line "lake_dir is a file: $cmd"
done
t 2 -c file.yaml query "SELECT 1"
one_line "lake_dir is a file: query"
t 2 -c through.yaml update --to 2024-07-26_01:10
one_line "lake_dir through a file"
[ "$(cat afile)" = keep ] || fail "the file named by lake_dir was changed"
if [ "$(id -u)" -eq 0 ]; then
  echo "safety (paths): skipped the permission checks: root reads and writes any folder" >&2
  note "permission checks: see the skip line (root)"
else
  write_config noread.yaml noread 2024-07-26_01:00
  mkdir noread && chmod 000 noread
  t 2 -c noread.yaml describe
  one_line "unreadable lake_dir"
  chmod 500 noread
  t 2 -c noread.yaml update --to 2024-07-26_01:10
  one_line "unwritable lake_dir"
  chmod 700 noread
fi
}

section_mistakes() {
write_config ppss.yaml lake 2024-07-26_01:00
t 0 -q update --to 2024-07-26_01:20
before="$(state ppss.yaml)"
sum="$(md5sum lake/lake.duckdb)"
files="$(ls lake)"
note "the start after the end, or in the future: config errors"
write_config late.yaml lake 2024-07-26_01:30 2024-07-26_01:10
write_config future.yaml lake 2024-07-27
for cfg in late future; do
  for cmd in "update" "raw update" "etl update" "etl rebuild" "update --every 1s"; do
    # shellcheck disable=SC2086
    t 2 -c $cfg.yaml $cmd
    one_line "$cfg: $cmd"
  done
done
note "--to before the start: usage errors"
for cmd in "update" "raw update" "etl update" "etl rebuild" "update --every 1s"; do
  # shellcheck disable=SC2086
  t 2 $cmd --to 2024-07-26_00:30
  one_line "$cmd --to before the start"
done
note "raw import: --to in the future, --from not before --to"
mkdir empty
t 2 raw import empty --from 2024-07-26 --to 2099-01-01
one_line "raw import --to in the future"
t 2 raw import empty --from 2024-07-26_02:00 --to 2024-07-26_01:00
one_line "raw import --from after --to"
[ "$(state ppss.yaml)" = "$before" ] || fail "a refused command changed the lake: $before -> $(state ppss.yaml)"
[ "$(md5sum lake/lake.duckdb)" = "$sum" ] || fail "a refused command changed the lake file"
[ "$(ls lake)" = "$files" ] || fail "a refused command left files: $(ls lake)"
note "writers that only change what is there: no lake, nothing created"
write_config missing.yaml missing 2024-07-26_01:00
for cmd in "etl update" "etl rebuild" "etl drop --from 2024-07-26_01:10" "raw drop --from 2024-07-26_01:10"; do
  # shellcheck disable=SC2086
  t 3 -c missing.yaml $cmd
  one_line "$cmd on a missing lake"
  [ ! -e missing ] || fail "$cmd created the missing lake"
done
}

section_output() {
write_config ppss.yaml lake 2024-07-26_01:00
t 0 -q update --to 2024-07-26_01:20
before="$(state ppss.yaml)"
note "stdout on a full device: exit 3, one line, never a truncated success"
full() {
  local rc=0
  "$bin" "$@" > /dev/full 2> err.txt || rc=$?
  { echo "\$ predlake $* > /dev/full"; echo "exit $rc"; normalise < err.txt; } >> "$transcript"
  [ "$rc" -eq 3 ] || fail "$* > /dev/full exited $rc"
  [ "$(wc -l < err.txt)" -eq 1 ] || fail "$* > /dev/full: $(cat err.txt)"
}
full query "SELECT * FROM range(100000)" --format csv
full query "SELECT 1"
full runs --format csv
full describe
full config show
note "stderr on a full device: the exit status still says so"
write_config missing.yaml missing 2024-07-26_01:00
rc=0
"$bin" -c missing.yaml describe > out.txt 2> /dev/full || rc=$?
echo "\$ predlake describe (no lake yet, its note to stderr) 2> /dev/full: exit $rc" >> "$transcript"
[ "$rc" -ne 0 ] || fail "a lost message on stderr exited 0"
note "a reader that goes away: quiet, like other Unix tools"
set +e
"$bin" query "SELECT * FROM range(2000000)" --format csv 2> err.txt | head -1 > head.txt
codes=("${PIPESTATUS[@]}")
set -e
echo "\$ predlake query 'SELECT * FROM range(2000000)' --format csv | head -1: predlake ${codes[0]}, head ${codes[1]}, stderr $(wc -c < err.txt) bytes" >> "$transcript"
[ "$(cat head.txt)" = range ] || fail "head saw: $(cat head.txt)"
[ ! -s err.txt ] || fail "a closed pipe printed: $(cat err.txt)"
case "${codes[0]}" in 0|141) ;; *) fail "predlake exited ${codes[0]} on a closed pipe" ;; esac
[ "$(state ppss.yaml)" = "$before" ] || fail "failed output changed the lake"
}

section_fulldisk() {
mkdir -p full
if [ "$(id -u)" -ne 0 ] || ! mount -t tmpfs -o size=3M tmpfs full 2>/dev/null; then
  echo "safety (fulldisk): skipped: cannot mount a small tmpfs (needs root)" >&2
  note "skipped: no small file system to fill"
  return 0
fi
mounted="$PWD/full"
PREDICTOORS=40 write_config full/ppss.yaml full/lake 2024-07-25_02:00
note "a fetch that fills the disk: one line, exit 3, and the ledger agrees with what was stored"
t 3 -c full/ppss.yaml raw update
one_line "fetch on a full disk"
"$bin" -q -c full/ppss.yaml query "SELECT count(*) FROM predlake_watermarks w, (SELECT watermarks_after FROM predlake_runs ORDER BY run_id DESC LIMIT 1) r WHERE json_extract(r.watermarks_after, '\$.' || w.table_name)::BIGINT IS DISTINCT FROM w.watermark_ms" --format csv > ahead.csv
[ "$(tail -1 ahead.csv)" = 0 ] || fail "the ledger records watermarks other than the stored ones: $(cat ahead.csv)"
"$bin" -q -c full/ppss.yaml query "SELECT command || ' ' || status FROM predlake_runs ORDER BY run_id DESC LIMIT 1" --format csv | tail -1 >> "$transcript"
# validate passes, unless the disk filled before the first page of any table was stored: then it
# says exactly that (raw_tables_never_fetched, the one failing check, after the failed fetch).
if ! "$bin" -q -c full/ppss.yaml validate > validate.out; then
  { tail -1 "$transcript" | grep -q 'raw update failed' && [ "$(grep -c ' FAIL ' validate.out)" = 1 ] &&
    grep -q '^raw_tables_never_fetched  *FAIL' validate.out; } ||
    fail "validate after a full disk: $(cat validate.out)"
fi
note "a CSV written to the full disk fails instead of succeeding truncated"
rc=0
"$bin" -c full/ppss.yaml query "SELECT * FROM range(200000)" --format csv > full/out.csv 2> err.txt || rc=$?
{ echo "\$ predlake query 'SELECT * FROM range(200000)' --format csv > full/out.csv"; echo "exit $rc"; normalise < err.txt; } >> "$transcript"
[ "$rc" -eq 3 ] || fail "a CSV to a full disk exited $rc"
umount full && mounted=""
}

# wait_for WHAT COMMAND...: polls COMMAND (every 20 ms, up to 60 s) until it succeeds.
wait_for() {
  local what="$1"
  shift
  for _ in $(seq 1 3000); do
    if "$@" 2>/dev/null; then return 0; fi
    kill -0 "$bg_pid" 2>/dev/null || fail "the process ended before $what: $(cat bg.err)"
    nap 0.02
  done
  fail "timed out waiting for $what"
}
holds_file() { ls -l "/proc/$bg_pid/fd" 2>/dev/null | grep -q "$1"; }
# stop SIGNAL WANT_RC: sends SIGNAL to the background process and checks it ends within 2 s with WANT_RC
# and one line on stderr naming the signal.
stop() {
  local sig="$1" want="$2" rc=0 start end
  start=$(date +%s%N)
  kill "-$sig" "$bg_pid"
  wait "$bg_pid" || rc=$?
  end=$(date +%s%N)
  bg_pid=""
  # Where the work stood when the signal came varies; the transcript keeps what must not.
  { echo "exit $rc"; grep 'stopped by' bg.err | normalise | sed -E 's/(stopped by SIG[A-Z]+: ).*(cancelled|interrupted).*$/\1... (cancelled)/'; } >> "$transcript"
  [ "$rc" -eq "$want" ] || fail "exit $rc after SIG$sig, expected $want: $(cat bg.err)"
  [ $(( (end - start) / 1000000 )) -lt 2000 ] || fail "took $(( (end - start) / 1000000 )) ms to stop after SIG$sig"
  grep -q "SIG$sig" bg.err || fail "the last line does not name SIG$sig: $(tail -1 bg.err)"
}
# last_run: the newest ledger row, "command status: error"; in the transcript as "command status:
# (cancelled)" when its error says so.
brief() { sed -E 's/: .*(cancelled|interrupted).*$/: (cancelled)/'; }
# The last run as one line of text (its CSV field unquoted: an error may hold a comma).
last_run() { "$bin" -q query "SELECT command || ' ' || status || ': ' || coalesce(error, '') FROM predlake_runs ORDER BY run_id DESC LIMIT 1" --format csv | tail -1 | sed -E 's/^"(.*)"$/\1/; s/""/"/g'; }

# The default small world: each interrupted step stalls until its signal comes (PREDLAKE_STALL_AT),
# so no step needs a world large enough to outlast the signal.
section_signals() {
write_config ppss.yaml lake 2024-07-25_02:00
note "a long query: SIGINT interrupts DuckDB"
mkdir -p lake
t 0 -q update --to 2024-07-25_03:00
echo "\$ predlake query <a query that runs for minutes>, SIGINT once it has the lake open" >> "$transcript"
"$bin" query "SELECT count(*) FROM range(100000000000) a" > bg.out 2> bg.err &
bg_pid=$!
wait_for "the query to open the lake" holds_file lake.duckdb
sleep 1  # the query itself starts right after the lake opened; it runs for minutes
stop INT 130

note "the fetch: SIGINT, the run recorded as aborted, the lake consistent"
before="$(state ppss.yaml)"
echo "\$ predlake raw update, SIGINT once it holds the writer lock" >> "$transcript"
# Its first commit waits until the signal comes (the fetch may otherwise end before it).
PREDLAKE_STALL_AT=fetch_commit "$bin" raw update > bg.out 2> bg.err &
bg_pid=$!
wait_for "the fetch to stall at its commit" grep -q 'raw step fetch_commit stalls' bg.err
stop INT 130
last_run | brief >> "$transcript"
last_run | grep -q '^raw update aborted: .*\(cancelled\|interrupted\)' || fail "fetch run: $(last_run)"
"$bin" -q validate > /dev/null || fail "validate after an interrupted fetch"
t 0 -q raw update

note "the ETL of an update: SIGTERM once the fetch is done; built tables and checkpoint unchanged"
before="$(state ppss.yaml | sed 's/^[0-9]* runs; //')"
echo "\$ predlake update, SIGTERM after its fetch line" >> "$transcript"
# Its ETL waits at a staging step until the signal comes (it would otherwise end before it).
PREDLAKE_STALL_AT=stage_create "$bin" update > bg.out 2> bg.err &
bg_pid=$!
wait_for "the ETL to stall at stage_create" grep -q 'etl step stage_create stalls' bg.err
grep -q '^predlake: raw update on' bg.err || fail "no fetch line before the ETL: $(cat bg.err)"
stop TERM 143
last_run | brief >> "$transcript"
last_run | grep -q '^update aborted: .*cancelled' || fail "update run: $(last_run)"
after="$(state ppss.yaml | sed 's/^[0-9]* runs; //')"
[ "$(echo "$after" | sed 's/.*checkpoint/checkpoint/')" = "$(echo "$before" | sed 's/.*checkpoint/checkpoint/')" ] \
  || fail "the interrupted ETL changed the built tables: $before -> $after"

note "a rebuild: SIGTERM once it holds the lock; built tables and checkpoint unchanged"
t 0 -q etl update
before="$(state ppss.yaml | sed 's/^[0-9]* runs; //')"
echo "\$ predlake etl rebuild, SIGTERM once it holds the writer lock" >> "$transcript"
# The rebuild waits at its first staging step until the signal comes (a small lake rebuilds faster
# than the lock can be seen).
PREDLAKE_STALL_AT=stage_bronze_rebuild "$bin" etl rebuild > bg.out 2> bg.err &
bg_pid=$!
wait_for "the rebuild to stall" grep -q 'etl step stage_bronze_rebuild stalls' bg.err
stop TERM 143
last_run | brief >> "$transcript"
last_run | grep -q '^etl rebuild aborted: .*cancelled' || fail "rebuild run: $(last_run)"
[ "$(state ppss.yaml | sed 's/^[0-9]* runs; //')" = "$before" ] || fail "the interrupted rebuild changed the lake"
"$bin" -q validate > /dev/null || fail "validate after an interrupted rebuild"
}

section_loop() {
write_config ppss.yaml lake 2024-07-26_01:00
echo "\$ predlake update --every 1h (first loop; waits for its first run)" >> "$transcript"
"$bin" update --every 1h > bg.out 2> bg.err &
bg_pid=$!
wait_for "the first run of the loop" grep -q 'run finished' bg.err
note "a second loop is refused at once, while the first waits between runs"
t 4 update --every 1s
one_line "second loop"
note "readers and one-shot writers still get the lake between runs"
t 0 -q runs --format csv
t 0 -q raw update
echo "\$ kill -HUP <first loop>" >> "$transcript"
stop HUP 129
"$bin" -q runs --limit 0 --format csv > runs.csv
! grep -q ',running,' runs.csv || fail "a run left running: $(cat runs.csv)"
}

# Each section in a folder of its own (their lakes must not meet), with a transcript of its own
# compared with expected/safety/<section>.txt.
before_section() {
  : > "$transcript"
  mkdir -p "$work/$current"
  cd "$work/$current"
}
after_section() { check "$current.txt" "$transcript"; }
run_sections
