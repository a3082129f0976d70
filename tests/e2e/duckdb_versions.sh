#!/usr/bin/env bash
# A lake written by the previous DuckDB release opens, updates and validates with the one predlake
# links, and the other way round (docs/scale.md, "DuckDB 1.5.6 against 1.4.4"). The same binary runs on
# both libraries: the previous release's libduckdb.so (third_party/duckdb-1.4.4, fetched and
# hash-checked by scripts/fetch_duckdb.sh for the tests) is put first with LD_LIBRARY_PATH. The lake
# changes hands after every step, with its write-ahead log pending and after a checkpoint, and ends
# with the same built tables as a lake that only the linked release wrote.
set -euo pipefail
source "$(dirname "$0")/lib.sh" duckdb_versions "$@"

old_lib="${PREDLAKE_DUCKDB_OLD_LIB:-$src/third_party/duckdb-1.4.4/lib}"
[ -f "$old_lib/libduckdb.so" ] ||
  skip_all "no previous DuckDB release in $old_lib (scripts/fetch_duckdb.sh fetches it)"
asan_binary && skip_all "what it checks is the file format of two DuckDB releases (the release tree runs it)"

# A small world and no export after the publishes: what changes hands is the lake file (an
# export is two fifths of a small update's CPU, and its snapshot is Parquet, not the lake's format).
config() { # LAKE NOW
  cat > ppss.yaml <<YAML
lake_ss:
  lake_dir: $1
  st_timestr: 2024-07-26
  export_after_publish: false
sim_ss:
  now: $2
  start: 2024-07-25
  predictoors: 4
  pairs: BTC/USDT ETH/USDT
YAML
}
# with LIBRARY ARGS...: the binary on DuckDB 1.4.4 (old) or on the linked release (new); output as run's.
with() {
  local lib="$1" rc=0
  shift
  if [ "$lib" = old ]; then
    LD_LIBRARY_PATH="$old_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$bin" "$@" > out.txt 2> err.txt || rc=$?
  else
    "$bin" "$@" > out.txt 2> err.txt || rc=$?
  fi
  [ "$rc" -eq 0 ] || { cat out.txt err.txt >&2; fail "'$*' on the $lib library exited $rc"; }
}

# The library really changes: each prints its own version.
with old version
grep -q '^DuckDB v1\.4\.4' out.txt || fail "the old library is not 1.4.4: $(cat out.txt)"
with new version
grep -q '^DuckDB v1\.5\.6' out.txt || fail "the linked library is not 1.5.6: $(cat out.txt)"

# step LIBRARY NOW [ARGS...]: the lake passes to LIBRARY, which first validates it as the other one
# left it (replaying its pending log, if any), then fetches and builds up to NOW and runs ARGS; notes
# whether it leaves its log pending (`update` checkpoints only once the log is large; other writers
# checkpoint at close).
step() {
  local lib="$1" now="$2"
  shift 2
  if [ -e lake/lake.duckdb ]; then
    with "$lib" validate
    tail -1 out.txt | grep -q '^validate: all [0-9]* checks passed' ||
      fail "validate on the $lib library of the lake as the other left it: $(tail -3 out.txt)"
  fi
  config lake "$now"
  with "$lib" -q update
  [ "$#" -eq 0 ] || with "$lib" -q "$@"
  if [ -s lake/lake.duckdb.wal ]; then wal_pending+=" $lib"; else wal_empty+=" $lib"; fi
}
wal_pending=""
wal_empty=""
step old 2024-07-26_02:00
step new 2024-07-26_03:00
step old 2024-07-26_04:00
step new 2024-07-26_05:00 validate --incremental
step old 2024-07-26_06:00 etl drop --from 2024-07-26T05:30:00Z
step new 2024-07-26_07:00 etl rebuild
step old 2024-07-26_08:00 validate --incremental
step new 2024-07-26_09:00
with new validate
tail -1 out.txt | grep -q '^validate: all [0-9]* checks passed' || fail "last validate: $(tail -3 out.txt)"
# Both kinds of hand-off happened in each direction: a log the other library replays, and a file
# checkpointed by one library that the other writes into.
for lib in old new; do
  [[ "$wal_pending" == *"$lib"* ]] || fail "the $lib library never left its log pending ($wal_pending)"
  [[ "$wal_empty" == *"$lib"* ]] || fail "the $lib library never checkpointed ($wal_empty)"
done

# A lake built by the linked release alone over the same world holds the same built and raw rows.
config alone 2024-07-26_09:00
with new -q update
# dump LAKE: every built table's rows without run_id, and each raw table's IDs, as text, sorted, in
# LAKE.<table>.txt; in one query (each run of the binary opens the lake: the 20 queries this took
# were a fifth of the script's time).
dump() {
  config "$1" 2024-07-26_09:00
  local q="" t
  for t in bronze_pdr_slots bronze_pdr_predictions gold_predictoor_daily gold_feed_daily \
    gold_feed_sales_daily; do
    q+="${q:+ UNION ALL }SELECT '$t' AS t, CAST(r AS VARCHAR) AS v FROM (SELECT * EXCLUDE (run_id) FROM $t) AS r"
  done
  for t in pdr_predictions pdr_truevals pdr_payouts pdr_subscriptions pdr_slots; do
    q+=" UNION ALL SELECT '$t', CAST(ID AS VARCHAR) FROM $t"
  done
  with new -q query "SELECT t, v FROM ($q) ORDER BY t, v" --format csv
  awk -F, -v lake="$1" 'NR > 1 { t = $1; gsub(/"/, "", t); print > (lake "." t ".txt") }' out.txt
}
dump lake
dump alone
for t in bronze_pdr_slots bronze_pdr_predictions gold_predictoor_daily gold_feed_daily \
  gold_feed_sales_daily pdr_predictions pdr_truevals pdr_payouts pdr_subscriptions pdr_slots; do
  [ -s "alone.$t.txt" ] || fail "$t is empty"
  cmp -s "alone.$t.txt" "lake.$t.txt" || fail "$t differs from the lake the linked release built alone"
done
echo "duckdb_versions: ok (log pending after:$wal_pending; checkpointed after:$wal_empty)"
