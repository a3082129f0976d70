#!/usr/bin/env bash
# The scale table of docs/scale.md: for each size, builds a synthetic lake with bench_scale_lake
# (which also times the first ETL run, `etl rebuild` and the single-query baseline, each with
# DuckDB's CHECKPOINT), then measures through the binary, process start to exit, wall seconds and
# peak RSS (/usr/bin/time): describe, validate (the first `validate --incremental`, which checks
# everything and records its mark), three incremental `update`s of one hour each (the simulated network continues the lake from its end, ~2,000 predictions an
# hour), `validate --incremental` after them and `etl drop` of the last hour. One run; the machine's other load shows in the figures.
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
mkdir -p "$work"

# timed NAME ARGS...: runs the binary, prints "wall_s(cpu_s) rss_mb".
timed() {
  local name="$1"
  shift
  local rc=0
  /usr/bin/time -f "%e %U %S %M" -o "$work/$name.time" "$bin" -q -c "$work/ppss.yaml" "$@" \
    > "$work/$name.out" 2> "$work/$name.err" || rc=$?
  if [ "$rc" -gt 1 ]; then
    echo "scale: $name failed (exit $rc): $(tail -2 "$work/$name.err")" >&2
    exit 1
  fi
  local wall user sys rss cpu
  read -r wall user sys rss < <(tail -1 "$work/$name.time")
  cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
  echo "$name wall $wall cpu $cpu rss_mb $((rss / 1024))" >&2
  echo "$wall($cpu) $((rss / 1024))"
}

# config NOW: ppss.yaml for the lake, its simulated world starting at the lake's end.
config() {
  cat > "$work/ppss.yaml" <<YAML
lake_ss:
  lake_dir: $dir/lake
  st_timestr: 2024-01-01
  fin_timestr: now
  network: sim
sim_ss:
  seed: 42
  now: $1
  indexing_lag: 30s
  start: $start
YAML
}

echo "| predictions | first ETL s | etl rebuild s | baseline query s | rebuild / baseline | update 1 h, 3 runs: s (CPU s); peak | etl drop 1 h: s (CPU s) | describe: s (CPU s), peak | validate: s (CPU s), peak | validate --incremental: s (CPU s), peak |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for size in "$@"; do
  dir="$work/$size"
  mkdir -p "$dir"
  if [ ! -s "$dir/build.txt" ] || [ ! -d "$dir/built" ]; then
    echo "scale: building the $size-prediction lake..." >&2
    # PREDLAKE_BENCH_SKIP_REBUILD=1 (passed on) leaves `etl rebuild` and the baseline out.
    "$lake_bench" "$dir/built" "$size" > "$dir/build.txt"
  fi
  rm -rf "$dir/lake"
  cp -r "$dir/built" "$dir/lake"
  # The copy's dirty pages are written back now, not by the first fsync of a measured command.
  sync
  cat "$dir/build.txt" >&2
  get() { awk -v k="$1" '$1 == k { print $2 }' "$dir/build.txt"; }
  end_ms=$(get end_ms)
  start=$(date -u -d "@$((end_ms / 1000))" +%Y-%m-%d_%H:%M)
  config "$(date -u -d "@$((end_ms / 1000 + 3600 + 30))" +%Y-%m-%d_%H:%M:%S)"
  read -r d_wall d_rss < <(timed describe describe)
  # The first incremental run has no mark: it runs every check (what `validate` runs) and records one.
  # PREDLAKE_BENCH_SKIP_VALIDATE=1 leaves both validates out (a 60M lake's full validate takes long).
  if [ "${PREDLAKE_BENCH_SKIP_VALIDATE:-0}" = 1 ]; then
    v_wall="not run"; v_rss="—"
  else
    read -r v_wall v_rss < <(timed validate validate --incremental)
  fi
  updates=""
  for h in 1 2 3; do
    config "$(date -u -d "@$((end_ms / 1000 + h * 3600 + 30))" +%Y-%m-%d_%H:%M:%S)"
    read -r u_wall u_rss < <(timed "update$h" update)
    updates="$updates${updates:+, }$u_wall"
  done
  if [ "${PREDLAKE_BENCH_SKIP_VALIDATE:-0}" = 1 ]; then
    i_wall="not run"; i_rss="—"
  else
    read -r i_wall i_rss < <(timed validate_incremental validate --incremental)
  fi
  drop_from=$(date -u -d "@$((end_ms / 1000 + 2 * 3600))" +%Y-%m-%dT%H:%M:%SZ)
  read -r x_wall x_rss < <(timed etl_drop etl drop --from "$drop_from")
  preds=$(get predictions)
  echo "| $preds | $(get first_etl_s) | $(get rebuild_s) | $(get baseline_s) |" \
       "$(awk -v a="$(get rebuild_s)" -v b="$(get baseline_s)" 'BEGIN { if (b == "" || b == "failed") print "—"; else printf "%.2fx", a / b }') |" \
       "$updates; $u_rss MB | $x_wall | $d_wall, $d_rss MB |" \
       "$v_wall, $v_rss MB | $i_wall, $i_rss MB |"
done
