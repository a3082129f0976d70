#!/usr/bin/env bash
# Backfill and chunked runs through the binary (issue 13): moving lake_ss.st_timestr earlier fetches
# and rebuilds from the new start (equal to a one-shot build from it; `etl rebuild` after a backfill
# too), moving it later says that nothing changes (an end --to between the lake's start and the
# later one is work like any other for etl update, etl rebuild, update, update --every and raw
# update; one not after the lake's start is refused, naming it), a first update fetches in
# lake_ss.checkpoint_period chunks and builds in parts with one progress line per run, a SIGKILL in
# a chunk (or a part of a first update) loses only that one, a run under a small lake_ss.memory_limit builds the same tables, and a bad
# checkpoint_period or memory_limit is one line naming file:line, exit 2, nothing written.
#
# The sections run in parallel, each on its own lakes; the ones that compare with the one-shot build
# from 12:00 read its fingerprint, made once by the setup section (one_shot).
#
# backfill.sh PREDLAKE_BINARY [all|SECTION]
set -euo pipefail
sections="setup start later rebuild kill etl_chunks memory config"
needs_setup="start rebuild kill etl_chunks memory"
source "$(dirname "$0")/lib.sh" backfill "$@"
loop_pid=""
on_exit() {
  if [ -n "$loop_pid" ] && kill -0 "$loop_pid" 2> /dev/null; then
    kill -TERM "$loop_pid"
    wait "$loop_pid" || true
  fi
}

# sql CONFIG SQL: one value.
sql() { "$bin" -q -c "$1" query "$2" --format csv | tail -n +2; }
# config FILE LAKE_DIR START PERIOD [MEMORY_LIMIT]: a config for the simulated network, with no
# export after the publishes: the sections compare the lakes' tables (an export is two fifths of a
# small update's CPU); tests/e2e/export.sh has the export's own runs.
config() {
  cat > "$1" <<EOF
lake_ss:
  lake_dir: $2
  st_timestr: $3
  fin_timestr: now
  network: sim
  checkpoint_period: $4
  memory_limit: ${5:-1GB}
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
}
# fingerprint CONFIG: every raw and built table's rows (built ones without run_id) as count/hash,
# and the checkpoint, in two queries (each run of the binary opens the lake: a fifth of a CPU second).
fingerprint() {
  local q="" t i=0
  for t in pdr_predictions pdr_truevals pdr_payouts pdr_subscriptions pdr_slots; do
    q+="SELECT $((i++)) AS i, '$t' AS t, count(*) || '/' || coalesce(sum(hash(r)), 0) AS v FROM $t AS r UNION ALL "
  done
  for t in $(sql "$1" "SELECT string_agg(table_name, ' ' ORDER BY table_name) FROM duckdb_tables() WHERE table_name LIKE 'bronze\_%' ESCAPE '\\' OR table_name LIKE 'gold\_%' ESCAPE '\\'"); do
    q+="SELECT $((i++)), '$t', count(*) || '/' || coalesce(sum(hash(r)), 0) FROM (SELECT * EXCLUDE (run_id) FROM $t) AS r UNION ALL "
  done
  q+="SELECT $i, 'checkpoint', (SELECT start_ms || '/' || checkpoint_ms FROM predlake_checkpoint)"
  sql "$1" "SELECT string_agg(t || '=' || coalesce(v, ''), ' ' ORDER BY i) FROM ($q)"
}
# The one-shot build from 12:00, in $shared (lib.sh): CTest runs this section once, before the
# sections that compare with it; its fingerprint is $shared/one.fingerprint.
section_setup() {
  rm -rf "$shared/onelake" "$shared/one.fingerprint"
  (
    cd "$shared"
    config one.yaml onelake 2024-07-25_12:00 1000d
    run 0 -c one.yaml update
    fingerprint one.yaml > one.fingerprint.tmp
    mv one.fingerprint.tmp one.fingerprint
  )
}
# one_shot: $one, the one-shot build's fingerprint (built here when this run has none: a section run
# alone).
one_shot() {
  [ -s "$shared/one.fingerprint" ] || section_setup
  one="$(cat "$shared/one.fingerprint")"
}

# A chunked first update: its window fetched chunk by chunk, then built as one rebuild in parts (one
# 7-day part here); one line per run but the last (runs done and left, rows per second, ETA) and a
# summary; then the start moved earlier.
section_start() {
  config a.yaml lake 2024-07-25_20:00 2h
  run 0 -c a.yaml update
  grep -q '^predlake: update: chunk 1/4 \[2024-07-25T20:00:00Z, 2024-07-25T22:00:00Z) done: [0-9k]* rows, [0-9k]* rows/s, 3 chunks left, ETA [0-9]*s$' err.txt \
    || fail "chunk line: $(cat err.txt)"
  grep -q '^predlake: update: chunk 2/4 \[2024-07-25T22:00:00Z, 2024-07-26T00:00:00Z) done: .*, 2 chunks left, ETA ' err.txt \
    || fail "second chunk line: $(cat err.txt)"
  grep -q '^predlake: update: chunk 3/4 \[2024-07-26T00:00:00Z, 2024-07-26T02:00:00Z) done: .*, 1 chunk left, ETA ' err.txt \
    || fail "third chunk line: $(cat err.txt)"
  grep -q '^predlake: update: \[2024-07-25T20:00:00Z, 2024-07-26T01:59:30Z): ' err.txt \
    || fail "the publish of the whole window: $(cat err.txt)"
  grep -q '^predlake: update: 4 chunks (lake_ss.checkpoint_period 2h), [0-9]* rows in ' err.txt \
    || fail "summary line: $(cat err.txt)"
  [ "$(sql a.yaml "SELECT count(*) FROM predlake_runs WHERE command = 'update' AND status = 'succeeded'")" = 4 ] \
    || fail "one run per chunk and part"

  # The start moved earlier: [12:00, 20:00) is fetched and the built tables are rebuilt from 12:00.
  config a.yaml lake 2024-07-25_12:00 2h
  run 0 -c a.yaml update
  grep -q "(the start moved earlier from 2024-07-25T20:00:00Z to 2024-07-25T12:00:00Z: rebuilt from raw)" err.txt \
    || fail "backfill message: $(cat err.txt)"
  # The fetch's lines name the window it backfilled, not only the stretch at the end.
  grep -q '^predlake: update: fetched \[2024-07-25T12:00:00Z, 2024-07-26T01:59:30Z); ' err.txt \
    || fail "backfill fetch line: $(cat err.txt)"
  grep -q '^predlake: update: chunk 1/2 \[2024-07-25T12:00:00Z, ' err.txt \
    || fail "backfill chunk line: $(cat err.txt)"
  [ "$(sql a.yaml "SELECT min(start_ms) = max(start_ms) AND min(start_ms) = epoch_ms(TIMESTAMP '2024-07-25 12:00:00') FROM predlake_watermarks WHERE table_name LIKE 'pdr_%'")" = true ] \
    || fail "raw starts: $(sql a.yaml "SELECT string_agg(table_name || ' ' || start_ms, ', ') FROM predlake_watermarks")"
  [ "$(sql a.yaml "SELECT count(*) > 0 FROM bronze_pdr_predictions WHERE timestamp < epoch_ms(TIMESTAMP '2024-07-25 20:00:00')")" = true ] \
    || fail "nothing built before the old start"
  one_shot
  [ "$(fingerprint a.yaml)" = "$one" ] \
    || fail "backfilled lake differs from a one-shot build:
  $(fingerprint a.yaml)
  $one"
}

# The start moved later (on a lake that starts at 12:00): one line says that nothing changes.
section_later() {
  config a.yaml lake 2024-07-25_12:00 1000d
  run 0 -c a.yaml update
  config a.yaml lake 2024-07-25_18:00 2h
  before="$(fingerprint a.yaml)"
  run 0 -c a.yaml update
  [ "$(grep -c 'nothing changes' err.txt)" = 1 ] || fail "later start: $(cat err.txt)"
  grep -q "^predlake: warning: lake_ss.st_timestr 2024-07-25T18:00:00Z is after the lake's start 2024-07-25T12:00:00Z: nothing changes" err.txt \
    || fail "later start line: $(cat err.txt)"
  [ "$(fingerprint a.yaml)" = "$before" ] || fail "a later start changed the lake"

  # A later start changes nothing for an end either (docs/runs.md, "A later start"): the lake keeps its
  # data from 12:00, so an end between 12:00 and the later st_timestr (18:00) is work like any other,
  # for etl update, etl rebuild, update, update --every and raw update alike.
  cp_at() { [ "$(sql a.yaml "SELECT checkpoint_ms = epoch_ms(TIMESTAMP '$1') FROM predlake_checkpoint")" = true ]; }
  run 0 -c a.yaml etl drop --from 2024-07-25_14:00
  run 0 -c a.yaml etl update --to 2024-07-25_15:00
  cp_at "2024-07-25 15:00:00" || fail "etl update --to before the later start: $(cat err.txt)"
  run 0 -c a.yaml etl rebuild --to 2024-07-25_16:00
  grep -q '^predlake: etl rebuild: \[2024-07-25T12:00:00Z, ' err.txt && cp_at "2024-07-25 16:00:00" \
    || fail "etl rebuild --to before the later start: $(cat err.txt)"
  run 0 -c a.yaml update --to 2024-07-25_17:00
  cp_at "2024-07-25 17:00:00" || fail "update --to before the later start: $(cat err.txt)"
  "$bin" -c a.yaml update --every 1s --to 2024-07-25_17:30 > loop.out 2> loop.err &
  loop_pid=$!
  for _ in $(seq 1 1200); do
    grep -q 'checkpoint 2024-07-25T17:30:00Z' loop.err && break
    kill -0 "$loop_pid" 2> /dev/null || fail "update --every before the later start: $(cat loop.err)"
    nap 0.05
  done
  kill -TERM "$loop_pid"
  rc=0
  wait "$loop_pid" || rc=$?
  loop_pid=""
  [ "$rc" -eq 143 ] || fail "update --every before the later start exited $rc: $(cat loop.err)"
  cp_at "2024-07-25 17:30:00" || fail "update --every before the later start: $(cat loop.err)"
  run 0 -c a.yaml raw update --to 2024-07-25_15:00
  grep -q '^predlake: raw update on sim: nothing fetched: every table is at or past the end 2024-07-25T15:00:00Z' err.txt \
    || fail "raw update --to before the later start: $(cat err.txt)"
  run 0 -c a.yaml update
  [ "$(fingerprint a.yaml)" = "$before" ] || fail "the later start's runs ended with another lake"
  # An end not after the lake's own start is still nothing to do: one line naming that start, exit 2,
  # no run recorded.
  runs_before="$(sql a.yaml "SELECT count(*) FROM predlake_runs")"
  sum="$(md5sum lake/lake.duckdb)"
  for cmd in "etl update" "etl rebuild" "update" "update --every 1s" "raw update"; do
    # shellcheck disable=SC2086
    run 2 -c a.yaml $cmd --to 2024-07-25_12:00
    one_line_error "$cmd --to the lake's start"
    [ "$(cat err.txt)" = "predlake: --to: 2024-07-25T12:00:00Z is not after the lake's start 2024-07-25T12:00:00Z (lake_ss.st_timestr 2024-07-25T18:00:00Z is later and changes nothing): nothing would be done" ] \
      || fail "$cmd --to the lake's start: $(cat err.txt)"
  done
  [ "$(sql a.yaml "SELECT count(*) FROM predlake_runs")" = "$runs_before" ] || fail "a refused end recorded a run"
  [ "$(md5sum lake/lake.duckdb)" = "$sum" ] || fail "a refused end changed the lake file"
}

# `etl rebuild` after a completed backfill uses the new start too (docs/etl.md, "The window"): the
# backfill by `raw update` alone, then the rebuild from 12:00, equal to the one-shot build.
section_rebuild() {
  one_shot
  config b.yaml blake 2024-07-25_20:00 1000d
  run 0 -c b.yaml update
  config b.yaml blake 2024-07-25_12:00 1000d
  run 0 -c b.yaml raw update
  [ "$(sql b.yaml "SELECT start_ms = epoch_ms(TIMESTAMP '2024-07-25 20:00:00') FROM predlake_checkpoint")" = true ] \
    || fail "raw update moved the checkpoint's start"
  run 0 -c b.yaml etl rebuild
  grep -q '^predlake: etl rebuild: \[2024-07-25T12:00:00Z, .*(the start moved earlier from 2024-07-25T20:00:00Z to 2024-07-25T12:00:00Z: rebuilt from raw)' err.txt \
    || fail "etl rebuild after the backfill: $(cat err.txt)"
  [ "$(fingerprint b.yaml)" = "$one" ] || fail "etl rebuild after the backfill differs from a one-shot build"
}

# A SIGKILL in a later chunk (its publish) loses that chunk only; the rerun equals one window.
section_kill() {
  one_shot
  config k.yaml klake 2024-07-25_12:00 3h
  run 0 -c k.yaml update --to 2024-07-25_18:00
  for step in commit fetch_commit; do
    rc=0
    (PREDLAKE_KILL_AT=$step "$bin" -q -c k.yaml update > /dev/null; exit $?) 2> /dev/null || rc=$?
    [ "$rc" -eq 137 ] || fail "the update killed at $step exited $rc"
  done
  [ "$(sql k.yaml "SELECT checkpoint_ms = epoch_ms(TIMESTAMP '2024-07-25 18:00:00') FROM predlake_checkpoint")" = true ] \
    || fail "the killed chunk moved the checkpoint"
  run 0 -c k.yaml update
  [ "$(fingerprint k.yaml)" = "$one" ] || fail "rerun after the kills differs from one window"
  [ "$(sql k.yaml "SELECT count(*) FILTER (WHERE status = 'aborted') || '/' || count(*) FILTER (WHERE status NOT IN ('aborted', 'succeeded')) FROM predlake_runs")" = "2/0" ] \
    || fail "ledger: $(sql k.yaml "SELECT string_agg(status, ' ') FROM predlake_runs")"

  # A SIGKILL in each phase of a chunked first update (a fetch chunk, a part of its rebuild, the
  # publish after the last part committed): nothing is published, and the rerun resumes and equals
  # one window.
  config f.yaml flake 2024-07-25_12:00 3h
  for step in fetch_commit compute_predictions commit; do
    rc=0
    (PREDLAKE_KILL_AT=$step "$bin" -q -c f.yaml update > /dev/null; exit $?) 2> /dev/null || rc=$?
    [ "$rc" -eq 137 ] || fail "the first update killed at $step exited $rc"
  done
  [ "$(sql f.yaml "SELECT count(*) FROM predlake_checkpoint")" = 0 ] || fail "a killed first update published"
  run 0 -c f.yaml update
  grep -q '^predlake: update: \[2024-07-25T12:00:00Z, ' err.txt || fail "the resumed publish: $(cat err.txt)"
  [ "$(fingerprint f.yaml)" = "$one" ] || fail "a first update rerun after the kills differs from one window"
}

# `etl update` from a checkpoint runs a long window in incremental chunks, one run and one line
# each; a first `etl update` or an `etl rebuild` builds the whole window as one rebuild, in parts of
# the rebuild's 7-day passes (docs/etl.md), here one.
section_etl_chunks() {
  one_shot
  config e.yaml elake 2024-07-25_12:00 5h
  run 0 -c e.yaml raw update
  run 0 -c e.yaml etl update --to 2024-07-25_14:00
  run 0 -c e.yaml etl update
  [ "$(grep -c '^predlake: etl update: \[' err.txt)" = 3 ] || fail "etl update chunks: $(cat err.txt)"
  grep -q '^predlake: etl update: \[2024-07-25T14:00:00Z, 2024-07-25T19:00:00Z): ' err.txt || fail "first etl chunk: $(cat err.txt)"
  [ "$(fingerprint e.yaml)" = "$one" ] || fail "chunked etl update differs from one window"
  run 0 -c e.yaml etl rebuild
  [ "$(grep -c '^predlake: etl rebuild: \[2024-07-25T12:00:00Z, ' err.txt)" = 1 ] || fail "rebuild: $(cat err.txt)"
  # Every part is a run of the command asked for (docs/runs.md).
  [ "$(sql e.yaml "SELECT string_agg(command, '|' ORDER BY run_id) FROM predlake_runs WHERE run_id > (SELECT max(run_id) FROM predlake_runs WHERE command = 'etl update') AND command <> 'export'")" = "etl rebuild" ] \
    || fail "rebuild's ledger: $(sql e.yaml "SELECT string_agg(command, '|' ORDER BY run_id) FROM predlake_runs")"
  [ "$(fingerprint e.yaml)" = "$one" ] || fail "chunked etl rebuild differs from one window"
}

# A bad checkpoint_period or memory_limit: one line naming file:line, exit 2, nothing written.
section_config() {
  config bad.yaml badlake 2024-07-25_12:00 10s
  run 2 -c bad.yaml update
  [ "$(cat err.txt)" = "predlake: bad.yaml:6: lake_ss.checkpoint_period: '10s' is shorter than 1m" ] \
    || fail "bad period: $(cat err.txt)"
  [ ! -e badlake ] || fail "a bad period wrote the lake"
  config bad.yaml badlake 2024-07-25_12:00 often
  run 2 -c bad.yaml update
  [ "$(wc -l < err.txt)" = 1 ] && grep -q "^predlake: bad.yaml:6: " err.txt || fail "bad period text: $(cat err.txt)"
  [ ! -e badlake ] || fail "a bad period wrote the lake"

  for limit in 12XB 1.GB 64MB; do
    config bad.yaml badlake 2024-07-25_12:00 1d "$limit"
    run 2 -c bad.yaml update
    case "$limit" in
      64MB) want="predlake: bad.yaml:7: lake_ss.memory_limit: '64MB' is less than 128MB" ;;
      *) want="predlake: bad.yaml:7: lake_ss.memory_limit: '$limit' is not a memory size (e.g. 512MB, 1GB, 1.5GiB)" ;;
    esac
    [ "$(cat err.txt)" = "$want" ] || fail "bad memory_limit $limit: $(cat err.txt)"
    [ ! -e badlake ] || fail "a bad memory_limit wrote the lake"
  done
}

# A small memory_limit (DuckDB evicts and spills beside the lake) builds the same tables.
section_memory() {
  one_shot
  config m.yaml mlake 2024-07-25_12:00 1000d 128MB
  run 0 -c m.yaml update
  [ "$(fingerprint m.yaml)" = "$one" ] || fail "a 128MB memory_limit built other tables"
}

run_sections
