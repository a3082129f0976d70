#!/usr/bin/env bash
# Parquet snapshots (`predlake export`, docs/export.md) through the binary, on a small simulated world.
#   faults:  the export after every publish; a failing or killed export leaves the previous snapshot
#            current, is recorded in the ledger, never fails the publish, and is cleaned up by the next
#            run; a full disk (a small tmpfs; skipped without mount rights) fails cleanly.
#   readers: describe, query and runs read the snapshot while a writer holds the lake (and say so),
#            --from-lake / --from-snapshot; a reader loop during exports only sees complete snapshots.
#   parquet: every exported file read by hyparquet (a pure-JS Parquet reader, not DuckDB) under node
#            agrees with the lake (exit 77 when node or npm is missing).
# Usage: export.sh PREDLAKE_BINARY [faults|readers|parquet]  (no section: all)
set -euo pipefail
sections="faults readers parquet"
source "$(dirname "$0")/lib.sh" export "$@"
mounted=""
on_exit() { [ -z "$mounted" ] || umount "$mounted" 2>/dev/null || true; }

# A small world over three days: snapshots have days to link.
write_config() {  # write_config LAKE_DIR EXPORT_AFTER_PUBLISH [EXPORT_GRACE]
  cat > ppss.yaml <<YAML
lake_ss:
  lake_dir: $1
  st_timestr: 2024-07-23
  fin_timestr: now
  export_after_publish: $2
  export_grace: ${3:-0s}
sim_ss:
  now: 2024-07-25_12:00
  start: 2024-07-23
  predictoors: 3
  pairs: BTC/USDT ETH/USDT
YAML
}

current() { readlink "$1/exports/current"; }
ledger() {  # ledger SQL: one value from the lake
  "$bin" -q query "$1" --format csv --from-lake | tail -n +2
}

section_faults() {
  write_config lake true
  # ---- The export after a publish: `update` makes snapshot 2 (run 1 is the update).
  run 0 update --to 2024-07-24
  grep -q 'export: snapshot run-000002 (full)' err.txt || fail "no export after update: $(cat err.txt)"
  [ "$(current lake)" = run-000002 ] || fail "current is $(current lake)"
  # ---- An injected failure: the publish stands, the export is a failed run, run-000002 stays current.
  PREDLAKE_FAIL_AT=export:manifest run 0 update --to 2024-07-24_12:00
  grep -q 'the export after the publish failed (the publish stands)' err.txt || fail "$(cat err.txt)"
  [ "$(current lake)" = run-000002 ] || fail "a failed export switched current"
  [ "$(ledger "SELECT status FROM predlake_runs WHERE run_id = 3")" = succeeded ] || fail "update"
  [ "$(ledger "SELECT status FROM predlake_runs WHERE run_id = 4")" = failed ] || fail "export run"
  ls -a lake/exports | grep -q '^\.tmp-' && fail "a failed export left its folder"
  # ---- A kill during the export (SIGKILL while writing files): the update committed, the export's
  # folder stays until the next run, which removes it and records the dead run as aborted.
  set +e
  PREDLAKE_KILL_AT=export:fsync "$bin" -q update --to 2024-07-25 > out.txt 2> err.txt
  rc=$?
  set -e
  [ "$rc" -eq 137 ] || fail "the killed export exited $rc"
  ls -a lake/exports | grep -q '^\.tmp-run-000006$' || fail "no leftover of the killed export"
  [ "$(current lake)" = run-000002 ] || fail "a killed export switched current"
  run 0 export
  grep -q 'snapshot run-000007 (incremental)' err.txt || fail "$(cat err.txt)"
  ls -a lake/exports | grep -q '^\.tmp-' && fail "the next export did not remove the leftover"
  [ "$(current lake)" = run-000007 ] || fail "current is $(current lake)"
  [ "$(ledger "SELECT status FROM predlake_runs WHERE run_id = 6")" = aborted ] || fail "killed run"
  [ "$(ledger "SELECT status FROM predlake_runs WHERE run_id = 5")" = succeeded ] || fail "update 5"
  # export_grace 0s: the superseded snapshot went.
  [ ! -e lake/exports/run-000002 ] || fail "the superseded snapshot is still there"
  # The incremental snapshot equals a full one, file set aside: compare every table's rows.
  run 0 query "SELECT count(*) FROM bronze_pdr_predictions" --format csv --from-snapshot
  cp out.txt snap_count.txt
  run 0 export --full
  grep -q '(full)' err.txt || fail "export --full: $(cat err.txt)"
  run 0 query "SELECT count(*) FROM bronze_pdr_predictions" --format csv --from-snapshot
  cmp -s out.txt snap_count.txt || fail "the full snapshot differs from the incremental one"

  # ---- A full disk: a lake on a small tmpfs, filled up; the export fails with one line, leaves
  # nothing behind, and the previous snapshot stays current.
  mkdir -p small
  if ! mount -t tmpfs -o size=48m tmpfs small 2>/dev/null; then
    echo "export: full-disk case skipped (cannot mount a tmpfs)"
    return 0
  fi
  mounted="$work/small"
  write_config small/lake false
  run 0 -q update --to 2024-07-24
  run 0 -q export
  before="$(current small/lake)"
  run 0 -q update
  # Leave about 200 KB free.
  avail=$(df --output=avail -k small | tail -1)
  dd if=/dev/zero of=small/filler bs=1k count=$((avail - 200)) 2>/dev/null || true
  run 3 export --full
  [ "$(wc -l < err.txt)" -eq 1 ] || { cat err.txt; fail "full disk: not one line"; }
  grep -qi 'space' err.txt || fail "full disk: $(cat err.txt)"
  [ "$(current small/lake)" = "$before" ] || fail "a failed export switched current"
  ls -a small/lake/exports | grep -q '^\.tmp-' && fail "the failed export left its folder"
  rm -f small/filler
  run 0 -q export
  [ "$(current small/lake)" != "$before" ] || fail "the export after freeing space did not switch"
  umount small && mounted=""
}

section_readers() {
  write_config lake false
  run 0 -q update --to 2024-07-24
  # ---- No snapshot yet: --from-snapshot says so.
  run 3 query "SELECT 1" --from-snapshot
  grep -q 'no snapshot at lake/exports' err.txt || fail "$(cat err.txt)"
  run 2 runs --from-lake --from-snapshot
  grep -q 'exclude each other' err.txt || fail "$(cat err.txt)"
  run 0 -q export
  lake_rows="$(ledger "SELECT count(*) FROM bronze_pdr_predictions")"
  # ---- A writer holds the lake: the readers read the snapshot at once, and say so.
  start_holder "$work/lake" 30000
  run 0 query "SELECT count(*) AS n FROM bronze_pdr_predictions" --format csv
  [ "$(tail -n +2 out.txt)" = "$lake_rows" ] || fail "snapshot rows $(cat out.txt) != $lake_rows"
  grep -q 'is busy.*reading the snapshot of run 2 (made .* ago' err.txt || fail "$(cat err.txt)"
  [ "$(wc -l < err.txt)" = 1 ] || fail "the snapshot notice is not one line: $(cat err.txt)"
  run 0 runs --format csv
  grep -q '^1,update,succeeded' out.txt || fail "runs from the snapshot: $(cat out.txt)"
  grep -q 'is busy.*reading the snapshot of run 2 (made .* ago' err.txt || fail "runs: $(cat err.txt)"
  run 0 describe
  grep -q '^bronze_pdr_predictions ' out.txt || fail "describe from the snapshot"
  grep -q 'reading the snapshot of run 2 (made .* ago' err.txt || fail "$(cat err.txt)"
  # -q: the same answers, and not a word on stderr.
  run 0 -q query "SELECT count(*) AS n FROM bronze_pdr_predictions" --format csv
  [ "$(tail -n +2 out.txt)" = "$lake_rows" ] || fail "-q snapshot rows $(cat out.txt) != $lake_rows"
  for cmd in runs describe; do
    run 0 -q "$cmd"
    [ -s out.txt ] || fail "-q $cmd printed nothing"
    [ ! -s err.txt ] || fail "-q $cmd on the snapshot said: $(cat err.txt)"
  done
  run 4 query "SELECT 1" --from-lake
  stop_holder

  # ---- A reader loop during exports only ever sees complete snapshots: each one it opens has every
  # file its manifest names (superseded snapshots stay for export_grace, longer than a read). It
  # reads as soon as `current` changed, at the switch, and then waits for the next one: each
  # snapshot stays current for the seconds of the next update and export. (Reading without a
  # pause took a core from the writer: 47 reads of 0.45 CPU s for its 7 snapshots in one run.)
  write_config lake false 1m
  (
    for i in 1 2 3 4 5 6; do
      "$bin" -q update --to "2024-07-2$((4 + i / 3))_0$((i % 3 * 3)):00" > /dev/null 2>&1
      "$bin" -q export > /dev/null 2>&1
    done
    touch writer.done
  ) &
  writer=$!
  seen=0
  read_link=""
  # The poll starts no process (`-ef` and nap are builtins): under load, a readlink and a sleep
  # per turn cost more CPU than the reads.
  while [ ! -e writer.done ]; do
    if [ -n "$read_link" ] && [ lake/exports/current -ef "lake/exports/$read_link" ]; then
      nap 0.1
      continue
    fi
    read_link="$(current lake)"
    set +e
    "$bin" -q query "SELECT count(*) FROM pdr_predictions" --format csv --from-snapshot > loop.out 2> loop.err
    rc=$?
    set -e
    [ "$rc" -eq 0 ] || { cat loop.err; fail "a reader saw an incomplete snapshot (exit $rc)"; }
    seen=$((seen + 1))
  done
  wait "$writer"
  [ "$seen" -gt 0 ] || fail "the reader loop never ran"
  echo "export: readers: the reader loop opened $seen snapshots during 6 exports"
  run 0 query "SELECT count(*) FROM pdr_predictions" --format csv --from-snapshot
  cp out.txt snap.txt
  run 0 query "SELECT count(*) FROM pdr_predictions" --format csv --from-lake
  cmp -s out.txt snap.txt || fail "the last snapshot differs from the lake"
}

section_parquet() {
  if ! command -v node > /dev/null || ! command -v npm > /dev/null; then
    skip "node or npm missing"
    return 0
  fi
  reader_dir="$src/tests/parquet_reader"
  if [ ! -d "$reader_dir/node_modules/hyparquet" ]; then
    (cd "$reader_dir" && npm ci --no-audit --no-fund --silent) || fail "npm ci in $reader_dir"
  fi
  write_config lake false
  run 0 -q update --to 2024-07-24
  run 0 -q export
  run 0 -q update
  run 0 -q export
  # The lake's rows, per table, as JSON lines of text values (the reader prints the same).
  node "$reader_dir/read_snapshot.mjs" lake/exports/current > node_counts.txt \
    || fail "hyparquet could not read the snapshot"
  # The ledger in a snapshot lacks its own export. One query for every table (each run of the
  # binary opens the lake, which under the sanitizers costs a CPU second).
  q=""
  while read -r table rows; do
    case "$table" in predlake_*) continue ;; esac
    q+="${q:+ UNION ALL }SELECT '$table ' || count(*) FROM $table"
  done < node_counts.txt
  [ -n "$q" ] || fail "hyparquet saw no table"
  ledger "$q" | tr -d '"\r' | sort > lake_counts.txt
  grep -v '^predlake_' node_counts.txt | tr -d '\r' | sort > node_tables.txt
  cmp -s node_tables.txt lake_counts.txt ||
    fail "row counts, hyparquet's (<) against the lake's (>): $(diff node_tables.txt lake_counts.txt)"
  [ "$(wc -l < node_counts.txt)" -ge 11 ] || fail "hyparquet saw only $(wc -l < node_counts.txt) tables"
  # Row for row on the largest table: IDs and stakes as the lake has them.
  node "$reader_dir/read_snapshot.mjs" lake/exports/current bronze_pdr_predictions ID stake payout \
    > node_rows.txt
  ledger "SELECT ID, CAST(stake AS VARCHAR), coalesce(CAST(payout AS VARCHAR), 'NULL') FROM bronze_pdr_predictions ORDER BY ID" \
    | tr -d '"' | tr ',' ' ' > lake_rows.txt
  sort node_rows.txt | sed 's/\r//' > node_sorted.txt
  sort lake_rows.txt > lake_sorted.txt
  cmp -s node_sorted.txt lake_sorted.txt || {
    diff node_sorted.txt lake_sorted.txt | head -5
    fail "hyparquet's rows differ from the lake's"
  }
}

run_sections
