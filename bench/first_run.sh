#!/usr/bin/env bash
# First-run benchmark (issue 13): wall time and peak RSS of a first `predlake update` on the default
# simulated world, measured through the binary from process start to exit (/usr/bin/time), chunked
# (lake_ss.checkpoint_period, default 1d) against one window (a 1000d period), for history lengths
# of DAYS (default "30 90"). Prints a Markdown table (docs/bench_first_run.md holds one run).
#
# bench/first_run.sh PREDLAKE_BINARY [DAYS...]
#   PREDLAKE_BENCH_MODES: "chunked window" (default) or one of them.
#   PREDLAKE_BENCH_DIR: where the lakes go (default a temporary folder; each is deleted after use).
set -euo pipefail
bin="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
shift
days_list="${*:-30 90}"
modes="${PREDLAKE_BENCH_MODES:-chunked window}"
work="${PREDLAKE_BENCH_DIR:-$(mktemp -d)}"
mkdir -p "$work"
trap 'rm -rf "$work"/lake_* "$work"/*.yaml "$work"/*.time' EXIT
cd "$work"

echo "| history | mode | checkpoint_period | chunks | predictions | raw rows | wall s | CPU s | peak RSS MB |"
echo "|---|---|---|---|---|---|---|---|---|"
for days in $days_list; do
  for mode in $modes; do
    period=1d
    [ "$mode" = window ] && period=1000d
    lake="lake_${days}_${mode}"
    rm -rf "$lake"
    # The default world (sim_ss defaults) with its start moved DAYS before its pinned now.
    cat > "b.yaml" <<EOF
lake_ss:
  lake_dir: $lake
  st_timestr: $days days ago
  checkpoint_period: $period
  network: sim
sim_ss:
  start: $days days ago
EOF
    /usr/bin/time -f "%e %U %S %M" -o run.time "$bin" -q -c b.yaml update > /dev/null 2> err.txt \
      || { echo "update failed: $(cat err.txt)" >&2; exit 1; }
    read -r wall user sys rss_kb < run.time
    chunks="$("$bin" -q -c b.yaml query "SELECT count(*) FROM predlake_runs WHERE command = 'update'" --format csv | tail -1)"
    preds="$("$bin" -q -c b.yaml query "SELECT count(*) FROM bronze_pdr_predictions" --format csv | tail -1)"
    rawrows="$("$bin" -q -c b.yaml query "SELECT (SELECT count(*) FROM pdr_predictions) + (SELECT count(*) FROM pdr_truevals) + (SELECT count(*) FROM pdr_payouts) + (SELECT count(*) FROM pdr_subscriptions) + (SELECT count(*) FROM pdr_slots)" --format csv | tail -1)"
    echo "| ${days} d | $mode | $period | $chunks | $preds | $rawrows | $wall | $(echo "$user + $sys" | bc) | $((rss_kb / 1024)) |"
    rm -rf "$lake"
  done
done
