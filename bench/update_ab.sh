#!/usr/bin/env bash
# An hour's `update` through two builds of predlake on the same lake, alternately, so that the ratio
# of their times comes from one run on one machine (docs/scale.md, "The incremental update, phase
# by phase"). Each build works on its own fresh copy of a lake bench/scale.sh built (WORK_DIR/SIZE/
# built, with its build.txt), read once into the page cache so that neither pays the disk; hour h of
# the simulated network, continuing the lake from its end, goes to build A and then to build B.
# Prints one Markdown row per hour: wall seconds (CPU seconds, user + system) and the -v phases of
# each build, then the mean of each build over the hours without a checkpoint and over all hours.
# Usage: bench/update_ab.sh BIN_A BIN_B WORK_DIR SIZE [HOURS] (e.g. build-before/predlake
# build/release/predlake /tmp/scale 1500000 6). B_BUILT=DIR gives build B its own copy of the same
# lake (one a newer build already upgraded, say) instead of WORK_DIR/SIZE/built.
set -euo pipefail
bin_a="$1"
bin_b="$2"
work="$3"
size="$4"
hours="${5:-6}"
dir="$work/$size"
if [ ! -s "$dir/build.txt" ] || [ ! -d "$dir/built" ]; then
  echo "update_ab: no lake built at $dir (run bench/scale.sh first)" >&2
  exit 2
fi
end_ms=$(awk '$1 == "end_ms" { print $2 }' "$dir/build.txt")
start=$(date -u -d "@$((end_ms / 1000))" +%Y-%m-%d_%H:%M)

for side in a b; do
  src="$dir/built"
  if [ "$side" = b ] && [ -n "${B_BUILT:-}" ]; then src="$B_BUILT"; fi
  rm -rf "$dir/ab_$side"
  cp -r "$src" "$dir/ab_$side"
  cat "$dir/ab_$side/lake.duckdb" > /dev/null
done
sync

# run SIDE BIN HOUR: one update; prints "wall cpu checkpointed phases".
run() {
  local side="$1" bin="$2" hour="$3"
  local now
  now=$(date -u -d "@$((end_ms / 1000 + hour * 3600 + 30))" +%Y-%m-%d_%H:%M:%S)
  cat > "$dir/ab_$side.yaml" <<YAML
lake_ss:
  lake_dir: $dir/ab_$side
  st_timestr: 2024-01-01
  fin_timestr: now
  network: sim
sim_ss:
  seed: 42
  now: $now
  indexing_lag: 30s
  start: $start
YAML
  local err="$dir/ab_$side.err"
  /usr/bin/time -f "%e %U %S" -o "$dir/ab_$side.time" "$bin" -v -c "$dir/ab_$side.yaml" update \
    > /dev/null 2> "$err" || {
    echo "update_ab: $bin failed at hour $hour: $(tail -1 "$err")" >&2
    exit 1
  }
  local wall user sys phases checkpointed=0
  read -r wall user sys < <(tail -1 "$dir/ab_$side.time")
  phases=$(sed -n 's/.*update phases (ms): //p' "$err")
  case "$phases" in *"checkpoint of"*) checkpointed=1 ;; esac
  echo "$wall $(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }') $checkpointed $phases"
}

echo "| hour | A: wall (CPU) s | A: phases, ms | B: wall (CPU) s | B: phases, ms |"
echo "|---:|---:|---|---:|---|"
sums=""
for h in $(seq 1 "$hours"); do
  out_a=$(run a "$bin_a" "$h")  # a failed run stops the script (set -e)
  out_b=$(run b "$bin_b" "$h")
  read -r wa ca ka pa <<< "$out_a"
  read -r wb cb kb pb <<< "$out_b"
  echo "| $h | $wa ($ca) | $pa | $wb ($cb) | $pb |"
  sums="$sums$wa $ca $ka $wb $cb $kb"$'\n'
done
printf '%s' "$sums" | awk '
  { n++; wa += $1; ca += $2; wb += $4; cb += $5
    if ($3 == 0) { na++; qa += $1; pa += $2 } if ($6 == 0) { nb++; qb += $4; pb += $5 } }
  END {
    printf "\nMean over the hours without a checkpoint: A %.3f s (%.3f CPU), B %.3f s (%.3f CPU), B/A %.2f (%.2f CPU)\n",
      qa / na, pa / na, qb / nb, pb / nb, (qb / nb) / (qa / na), (pb / nb) / (pa / na)
    printf "Mean over all %d hours: A %.3f s (%.3f CPU), B %.3f s (%.3f CPU), B/A %.2f (%.2f CPU)\n",
      n, wa / n, ca / n, wb / n, cb / n, wb / wa, cb / ca
  }'
rm -rf "$dir/ab_a" "$dir/ab_b"
