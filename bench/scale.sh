#!/usr/bin/env bash
# The scale table of docs/scale.md: for each size, builds a synthetic lake with bench_scale_lake
# (which also times the first ETL run, `etl rebuild` and the single-query baseline, each with
# DuckDB's CHECKPOINT), then measures through the binary, process start to exit, wall seconds, CPU
# seconds and peak RSS (/usr/bin/time): describe, validate (the first `validate --incremental`,
# which checks everything and records its mark), three incremental `update`s of one hour each (the
# simulated network continues the lake from its end, ~2,000 predictions an hour; the first two
# leave their write-ahead log pending, the third checkpoints), `validate --incremental` after them,
# `etl drop` of the last hour, `etl rebuild` (lake_ss.checkpoint_period's chunks, as a user runs
# it), the first `export`, one more hourly update and the export after it, and `validate
# --incremental` after that history of rebuilds and exports. And the floor, bare DuckDB on the same
# lake (bench_duck_floor, one process each): the process start (`predlake --version`), an open and
# close, one commit of one changed row, the commit of the hour's change the second update made (its
# appended rows as typed constants, its changed rows updated in one column, in one transaction:
# `bench_duck_floor ... plan` says what it writes), and the checkpoint of the hour the first update
# left in the log; the updates between checkpoints are read against both commits' processes, the
# one that checkpoints against the checkpoint's. Every `update` runs with -v: its phases (start,
# open, fetch, ETL, close) are in the log. One run; the machine's other load shows in the figures.
# Usage: bench/scale.sh BUILD_DIR WORK_DIR SIZE... (e.g. build/release /tmp/scale 1000000 10000000).
# Each size lives in WORK_DIR/SIZE; a lake built there before (WORK_DIR/SIZE/build.txt beside a copy of
# the lake as built, WORK_DIR/SIZE/built) is reused. Prints a Markdown table on stdout; progress and the
# raw figures on stderr. Times are wall seconds with the process's CPU seconds (user + system) in
# parentheses: on a shared machine the CPU time is the steadier figure.
set -euo pipefail
build="$1"
work="$2"
shift 2
bin="$build/predlake"
lake_bench="$build/bench/bench_scale_lake"
floor_bench="$build/bench/bench_duck_floor"
mkdir -p "$work"

# timed NAME ARGS...: runs the binary, prints "wall_s(cpu_s) rss_mb".
timed() {
  local name="$1"
  shift
  measure "$name" "$bin" -q -c "$work/ppss.yaml" "$@"
}

# measure NAME COMMAND...: runs a command, prints "wall_s(cpu_s) rss_mb"; its CPU seconds are kept in
# $work/NAME.cpu.
measure() {
  local name="$1"
  shift
  local rc=0
  /usr/bin/time -f "%e %U %S %M" -o "$work/$name.time" "$@" \
    > "$work/$name.out" 2> "$work/$name.err" || rc=$?
  if [ "$rc" -gt 1 ]; then
    echo "scale: $name failed (exit $rc): $(tail -2 "$work/$name.err")" >&2
    # soft=1 (etl rebuild, export: out of memory is a finding): the row says so and goes on.
    if [ "${soft:-0}" = 1 ]; then
      echo 0 > "$work/$name.cpu"
      echo "failed(exit-$rc) —"
      return 0
    fi
    exit 1
  fi
  local wall user sys rss cpu
  read -r wall user sys rss < <(tail -1 "$work/$name.time")
  cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
  echo "$cpu" > "$work/$name.cpu"
  echo "$name wall $wall cpu $cpu rss_mb $((rss / 1024))" >&2
  echo "$wall($cpu) $((rss / 1024))"
}

# ratio A B: the CPU seconds of measurement A over those of B, "N.Nx".
ratio() {
  awk -v a="$(cat "$work/$1.cpu")" -v b="$(cat "$work/$2.cpu")" \
    'BEGIN { if (b > 0) printf "%.1fx", a / b; else print "—" }'
}

# config NOW: ppss.yaml for the lake, its simulated world starting at the lake's end.
config() {
  cat > "$work/ppss.yaml" <<YAML
lake_ss:
  lake_dir: $dir/lake
  st_timestr: 2024-01-01
  fin_timestr: now
  network: sim
  export_after_publish: false
sim_ss:
  seed: 42
  now: $1
  indexing_lag: 30s
  start: $start
YAML
}

echo "| predictions | first ETL s | etl rebuild s | baseline query s | rebuild / baseline (CPU) | update 1 h, 3 runs: s (CPU s); peak | etl drop 1 h: s (CPU s); peak | describe: s (CPU s), peak | validate: s (CPU s), peak | validate --incremental: s (CPU s), peak | \`etl rebuild\` (binary): s (CPU s), peak | first export: s (CPU s), peak | update + export of 1 h: s (CPU s), peak | validate --incremental after rebuild and exports: s (CPU s), peak | floor: start; open; commit of 1 row; commit of 1 h's change; checkpoint of 1 h: s (CPU s) | update / floor (CPU): between checkpoints against the commit of 1 row; against the commit of 1 h's change; with one against the checkpoint |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for size in "$@"; do
  dir="$work/$size"
  mkdir -p "$dir"
  if [ ! -s "$dir/build.txt" ] || [ ! -d "$dir/built" ]; then
    echo "scale: building the $size-prediction lake..." >&2
    # PREDLAKE_BENCH_SKIP_REBUILD=1 (passed on) leaves `etl rebuild` and the baseline out.
    "$lake_bench" "$dir/built" "$size" > "$dir/build.txt"
  fi
  rm -rf "$dir/lake" "$dir/floor" "$dir/floor_write"
  cp -r "$dir/built" "$dir/lake"
  # The copy's dirty pages are written back now, not by the first fsync of a measured command.
  sync
  cat "$dir/build.txt" >&2
  get() { awk -v k="$1" '$1 == k { print $2 }' "$dir/build.txt"; }
  end_ms=$(get end_ms)
  start=$(date -u -d "@$((end_ms / 1000))" +%Y-%m-%d_%H:%M)
  at_hour() { config "$(date -u -d "@$((end_ms / 1000 + $1 * 3600 + 30))" +%Y-%m-%d_%H:%M:%S)"; }
  at_hour 1
  read -r f_start _ < <(measure floor_start "$bin" --version)
  read -r f_open _ < <(measure floor_open "$floor_bench" "$dir/lake/lake.duckdb" open)
  read -r d_wall d_rss < <(timed describe describe)
  # The first incremental run has no mark: it runs every check (what `validate` runs) and records one.
  # PREDLAKE_BENCH_SKIP_VALIDATE=1 leaves the validates out (a 60M lake's full validate takes long).
  skip_validate="${PREDLAKE_BENCH_SKIP_VALIDATE:-0}"
  # PREDLAKE_BENCH_ONLY_UPDATES=1 runs the three hourly updates and the floors alone (the validates,
  # `etl drop`, the rebuild and the exports are "not run").
  only_updates="${PREDLAKE_BENCH_ONLY_UPDATES:-0}"
  [ "$only_updates" = 1 ] && skip_validate=1
  if [ "$skip_validate" = 1 ]; then
    v_wall="not run"; v_rss="—"
  else
    read -r v_wall v_rss < <(timed validate validate --incremental)
  fi
  updates=""
  u_peak=0
  for h in 1 2 3; do
    at_hour "$h"
    read -r u_wall u_rss < <(measure "update$h" "$bin" -v -c "$work/ppss.yaml" update)
    grep -h 'update phases' "$work/update$h.err" >&2 || true
    updates="$updates${updates:+, }$u_wall"
    u_peak=$((u_rss > u_peak ? u_rss : u_peak))
    # The floor's checkpoint: the hour the first update left in the log, on a copy.
    # The floor of the hour's change commits what the second update did (the first after a lake
    # was built also writes the bookkeeping rows a built lake lacks: streams, contracts, meta).
    if [ "$h" = 1 ]; then
      cp -r "$dir/lake" "$dir/floor"
      sync
      "$floor_bench" "$dir/floor/lake.duckdb" counts > "$work/counts_before"
    elif [ "$h" = 2 ]; then
      "$floor_bench" "$dir/lake/lake.duckdb" plan "$work/counts_before" > "$work/floor_write.sql"
    fi
  done
  if [ "$skip_validate" = 1 ]; then
    i_wall="not run"; i_rss="—"
  else
    read -r i_wall i_rss < <(timed validate_incremental validate --incremental)
  fi
  if [ "$only_updates" = 1 ]; then
    x_wall="not run"; x_rss="—"; r_wall="not run"; r_rss="—"; e_wall="not run"; e_rss="—"
    u4_wall="not run"; u4_rss="—"; e2_wall="not run"; e2_rss="—"
  else
    drop_from=$(date -u -d "@$((end_ms / 1000 + 2 * 3600))" +%Y-%m-%dT%H:%M:%SZ)
    read -r x_wall x_rss < <(timed etl_drop etl drop --from "$drop_from")
    read -r r_wall r_rss < <(soft=1 timed etl_rebuild etl rebuild)
    read -r e_wall e_rss < <(soft=1 timed export export)
    at_hour 4
    read -r u4_wall u4_rss < <(timed update4 update)
    read -r e2_wall e2_rss < <(soft=1 timed export2 export)
  fi
  if [ "$skip_validate" = 1 ]; then
    h_wall="not run"; h_rss="—"
  else
    read -r h_wall h_rss < <(timed validate_history validate --incremental)
  fi
  read -r f_checkpoint _ < <(measure floor_checkpoint "$floor_bench" "$dir/floor/lake.duckdb" checkpoint)
  # The commit of the hour's change on its own copy of the checkpointed lake: on the same file the
  # other commit would replay its log.
  cp -r "$dir/floor" "$dir/floor_write"
  sync
  read -r f_commit _ < <(measure floor_commit "$floor_bench" "$dir/floor/lake.duckdb" commit)
  read -r f_write _ < <(measure floor_write "$floor_bench" "$dir/floor_write/lake.duckdb" write \
    "$work/floor_write.sql")
  cat "$work"/floor_*.out >&2
  rm -rf "$dir/floor" "$dir/floor_write"
  u_between=$(awk -v a="$(cat "$work/update1.cpu")" -v b="$(cat "$work/update2.cpu")" \
    'BEGIN { printf "%.2f", (a + b) / 2 }')
  echo "$u_between" > "$work/update_between.cpu"
  preds=$(get predictions)
  echo "| $preds | $(get first_etl_s) | $(get rebuild_s) | $(get baseline_s) |" \
       "$(awk -v a="$(get rebuild_cpu_s)" -v b="$(get baseline_cpu_s)" 'BEGIN { if (a == "" || b == "" || b == "failed") print "—"; else printf "%.2fx", a / b }') |" \
       "$updates; $u_peak MB | $x_wall, $x_rss MB | $d_wall, $d_rss MB |" \
       "$v_wall, $v_rss MB | $i_wall, $i_rss MB |" \
       "$r_wall, $r_rss MB | $e_wall, $e_rss MB | $u4_wall, $e2_wall; $u4_rss, $e2_rss MB | $h_wall, $h_rss MB |" \
       "$f_start; $f_open; $f_commit; $f_write; $f_checkpoint |" \
       "$(ratio update_between floor_commit); $(ratio update_between floor_write); $(ratio update3 floor_checkpoint) |"
done
