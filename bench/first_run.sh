#!/usr/bin/env bash
# First-run benchmark (issue 13): wall time and peak RSS of a first `predlake update` on the default
# simulated world, measured through the binary from process start to exit (/usr/bin/time), chunked
# (lake_ss.checkpoint_period, default 1d) against one window (a 1000d period), for history lengths
# of DAYS (default "30 90"). Prints a Markdown table (docs/bench_first_run.md holds one run): the
# peak RSS, and the process's resident memory (VmRSS) and peak so far (VmHWM) when the first chunk,
# the middle one and the last but one finished, read from /proc as each chunk's progress line comes.
#
# bench/first_run.sh PREDLAKE_BINARY [DAYS...]
#   PREDLAKE_BENCH_MODES: "chunked window" (default) or one of them.
#   PREDLAKE_BENCH_DIR: where the lakes go (default a temporary folder; each is deleted after use).
#   PREDLAKE_BENCH_MEMORY_LIMIT: lake_ss.memory_limit (default: the key's default).
#   PREDLAKE_BENCH_CHUNKS: a file each chunk's line "days mode chunk VmRSS_MB VmHWM_MB" is added to.
set -euo pipefail
bin="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
shift
days_list="${*:-30 90}"
modes="${PREDLAKE_BENCH_MODES:-chunked window}"
work="${PREDLAKE_BENCH_DIR:-$(mktemp -d)}"
mkdir -p "$work"
memory_limit="${PREDLAKE_BENCH_MEMORY_LIMIT:-}"
chunk_log="${PREDLAKE_BENCH_CHUNKS:-}"
trap 'rm -rf "$work"/lake_* "$work"/*.yaml "$work"/*.time "$work"/chunks.txt' EXIT
cd "$work"

# The MB of a /proc/PID/status field (VmRSS, VmHWM) of a running process, or "-".
status_mb() {
  awk -v f="$2:" '$1 == f { printf "%d", $2 / 1024; found = 1 } END { if (!found) printf "-" }' \
    "/proc/$1/status" 2>/dev/null || echo -
}

echo "| history | mode | checkpoint_period | chunks | predictions | raw rows | wall s | CPU s | peak RSS MB | RSS / peak MB after chunk 1, N/2, N-1 |"
echo "|---|---|---|---|---|---|---|---|---|---|"
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
  network: sim${memory_limit:+
  memory_limit: $memory_limit}
sim_ss:
  start: $days days ago
EOF
    # Each chunk's progress line ("update: chunk i/N ... done") samples the process's memory.
    : > chunks.txt
    /usr/bin/time -f "%e %U %S %M" -o run.time "$bin" -c b.yaml update > /dev/null 2> err.txt &
    timer=$!
    pid=""
    while kill -0 "$timer" 2> /dev/null; do
      [ -n "$pid" ] || pid="$(pgrep -P "$timer" | head -1 || true)"
      n="$(grep -c '^predlake: update: chunk ' err.txt || true)"
      if [ -n "$pid" ] && [ "$n" -gt "$(wc -l < chunks.txt)" ]; then
        echo "$days $mode $n $(status_mb "$pid" VmRSS) $(status_mb "$pid" VmHWM)" >> chunks.txt
      fi
      sleep 0.5
    done
    wait "$timer" || { echo "update failed: $(tail -3 err.txt)" >&2; exit 1; }
    [ -z "$chunk_log" ] || cat chunks.txt >> "$chunk_log"
    n="$(wc -l < chunks.txt)"
    samples="-"
    if [ "$n" -gt 0 ]; then
      samples=""
      for i in 1 $(((n + 1) / 2)) "$n"; do
        samples="$samples${samples:+, }$(awk -v i="$i" 'NR == i { print $4 " / " $5 }' chunks.txt)"
      done
    fi
    read -r wall user sys rss_kb < run.time
    chunks="$("$bin" -q -c b.yaml query "SELECT count(*) FROM predlake_runs WHERE command = 'update'" --format csv | tail -1)"
    preds="$("$bin" -q -c b.yaml query "SELECT count(*) FROM bronze_pdr_predictions" --format csv | tail -1)"
    rawrows="$("$bin" -q -c b.yaml query "SELECT (SELECT count(*) FROM pdr_predictions) + (SELECT count(*) FROM pdr_truevals) + (SELECT count(*) FROM pdr_payouts) + (SELECT count(*) FROM pdr_subscriptions) + (SELECT count(*) FROM pdr_slots)" --format csv | tail -1)"
    echo "| ${days} d | $mode | $period | $chunks | $preds | $rawrows | $wall | $(echo "$user + $sys" | bc) | $((rss_kb / 1024)) | $samples |"
    rm -rf "$lake"
  done
done
