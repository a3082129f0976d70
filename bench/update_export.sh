#!/usr/bin/env bash
# What the export after the publish (lake_ss.export_after_publish, on by default) adds to an hourly
# `update` (docs/export.md, "Its cost in an hourly update"). One build, two fresh copies of a lake
# bench/scale.sh built (SCALE_DIR/SIZE/built with its build.txt; only read), each read once into the
# page cache: "off" updates without the export, "on" with it, after one untimed-in-the-mean
# `predlake export` that gives it the previous snapshot an hourly run has. Hour h of the simulated
# network, continuing the lake from its end, goes to both copies, alternating which goes first.
# Each run is timed from process start to exit (/usr/bin/time: wall, user + system CPU, peak RSS).
# Prints one Markdown row per hour and the means, with the ratio on/off.
# Usage: bench/update_export.sh BIN SCALE_DIR SIZE WORK_DIR [HOURS]
# (e.g. build/release/predlake /work/scale 1500000 /tmp/update_export 6). WORK_DIR/SIZE is
# replaced.
set -euo pipefail
bin="$1"
scale="$2"
size="$3"
work="$4"
hours="${5:-6}"
src="$scale/$size"
if [ ! -s "$src/build.txt" ] || [ ! -d "$src/built" ]; then
  echo "update_export: no lake built at $src (run bench/scale.sh first)" >&2
  exit 2
fi
dir="$work/$size"
end_ms=$(awk '$1 == "end_ms" { print $2 }' "$src/build.txt")
start=$(date -u -d "@$((end_ms / 1000))" +%Y-%m-%d_%H:%M)
rm -rf "$dir"
mkdir -p "$dir"
for side in off on; do
  cp -r "$src/built" "$dir/$side"
  rm -f "$dir/$side/lake.lock"
  cat "$dir/$side/lake.duckdb" > /dev/null
done
sync

# config SIDE NOW: the side's config at simulated time NOW.
config() {
  local side="$1" now="$2" export=false
  if [ "$side" = on ]; then export=true; fi
  cat > "$dir/$side.yaml" <<YAML
lake_ss:
  lake_dir: $dir/$side
  st_timestr: 2024-01-01
  fin_timestr: now
  network: sim
  export_after_publish: $export
sim_ss:
  seed: 42
  now: $now
  indexing_lag: 30s
  start: $start
YAML
}

# timed SIDE ARGS...: runs predlake on the side's lake; prints "wall cpu export_ms rss_mb".
timed() {
  local side="$1"
  shift
  local err="$dir/$side.err"
  /usr/bin/time -f "%e %U %S %M" -o "$dir/$side.time" "$bin" -v -c "$dir/$side.yaml" "$@" \
    > /dev/null 2> "$err" || {
    echo "update_export: $side $* failed: $(tail -1 "$err")" >&2
    exit 1
  }
  local wall user sys rss_kb export_ms
  read -r wall user sys rss_kb < <(tail -1 "$dir/$side.time")
  export_ms=$(sed -n 's/.*update phases (ms): .*export \([0-9]*\).*/\1/p' "$err")
  echo "$wall $(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }') ${export_ms:-0} $((rss_kb / 1024))"
}

hour_now() { date -u -d "@$((end_ms / 1000 + $1 * 3600 + 30))" +%Y-%m-%d_%H:%M:%S; }

config on "$(hour_now 0)"
read -r fw fc _ fr < <(timed on export)
echo "The first snapshot of the 'on' copy (a full export, not in the means): $fw s wall ($fc s CPU), peak RSS $fr MB"
echo
echo "| hour | first | off: wall (CPU) s | on: wall (CPU) s | on: the export's part, ms | peak RSS off / on, MB |"
echo "|---:|---|---:|---:|---:|---:|"
sums=""
for h in $(seq 1 "$hours"); do
  now=$(hour_now "$h")
  config off "$now"
  config on "$now"
  if [ $((h % 2)) = 1 ]; then
    first=off
    read -r wo co _ ro < <(timed off update)
    read -r wn cn xn rn < <(timed on update)
  else
    first=on
    read -r wn cn xn rn < <(timed on update)
    read -r wo co _ ro < <(timed off update)
  fi
  echo "| $h | $first | $wo ($co) | $wn ($cn) | $xn | $ro / $rn |"
  sums="$sums$wo $co $wn $cn $xn"$'\n'
done
printf '%s' "$sums" | awk '
  { n++; wo += $1; co += $2; wn += $3; cn += $4; xn += $5 }
  END {
    printf "\nMean of %d hours: off %.2f s (%.2f CPU), on %.2f s (%.2f CPU), the export %.0f ms; on/off %.2fx wall, %.2fx CPU\n",
      n, wo / n, co / n, wn / n, cn / n, xn / n, wn / wo, cn / co
  }'
du -sh "$dir/on/exports" | awk '{ print "The on copy'"'"'s exports folder: " $1 }'
