#!/usr/bin/env bash
# Many readers (docs/serve.md, "Performance: many readers"): `predlake serve` (the real binary, its
# own process) on the snapshot of a lake bench/scale.sh built, answering one client (10 x PAGES page loads),
# then CLIENTS concurrent clients, then one client again, in the same run. A client is one curl process loading PAGES pages in
# turn on one keep-alive connection (the overview, the leaderboard, the feeds, a predictoor's and a
# feed's page, round robin; each client its own predictoor, of the leaderboard's first CLIENTS);
# a page load is its HTML, where the server does the work (the assets are static). Prints per phase
# the answers by status, the latency p50/p95/max in ms, the server's CPU seconds, its peak thread
# count (sampled every 20 ms) and its peak RSS (VmHWM at the end). SERVE_ARGS are added to `serve`
# (e.g. "--page-cache-mb 0" to compute every page, "--page-slots 64").
# Usage: bench/serve_load.sh BIN SCALE_DIR SIZE WORK_DIR [CLIENTS] [PAGES]
# (e.g. build/release/predlake /work/scale 1500000 /tmp/serve_load 100 5). The lake is copied to
# WORK_DIR/SIZE (replaced; REUSE=1 keeps a copy exported by an earlier run) and exported there once;
# SCALE_DIR is only read.
set -euo pipefail
bin="$(realpath "$1")"
scale="$2"
size="$3"
work="$4"
clients="${5:-100}"
pages="${6:-5}"
src="$scale/$size/built"
if [ ! -d "$src" ]; then
  echo "serve_load: no lake built at $src (run bench/scale.sh first)" >&2
  exit 2
fi
command -v curl > /dev/null || { echo "serve_load: needs curl" >&2; exit 2; }
dir="$work/$size"
if [ "${REUSE:-0}" != 1 ] || [ ! -e "$dir/lake/exports/current" ]; then
  rm -rf "$dir"
  mkdir -p "$dir"
  cp -r "$src" "$dir/lake"
  rm -f "$dir/lake/lake.lock"
fi
cat > "$dir/ppss.yaml" <<YAML
lake_ss:
  lake_dir: $dir/lake
YAML
if [ ! -e "$dir/lake/exports/current" ]; then
  start=$(date +%s.%N)
  "$bin" -q -c "$dir/ppss.yaml" export
  echo "The snapshot (a full export): $(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }') s"
fi

# shellcheck disable=SC2086
"$bin" -c "$dir/ppss.yaml" serve --port 0 ${SERVE_ARGS:-} > "$dir/serve.out" 2> "$dir/serve.err" &
pid=$!
trap 'kill "$pid" 2> /dev/null || true; wait "$pid" 2> /dev/null || true' EXIT
for _ in $(seq 1 600); do
  url=$(head -1 "$dir/serve.out" 2> /dev/null || true)
  case "$url" in http*) break ;; esac
  sleep 0.1
done
url="${url%/}"
case "$url" in http*) ;; *) echo "serve_load: serve did not start: $(cat "$dir/serve.err")" >&2; exit 1 ;; esac
# The first request opens the snapshot (serve::Warm's work); not part of either phase.
curl -sf -o /dev/null "$url/"
mapfile -t addresses < <(curl -sf "$url/api/predictoors" | grep -o '0x[0-9a-f]\{40\}' |
  awk '!seen[$0]++' | head -n "$clients")
contract=$(curl -sf "$url/api/feeds" | grep -o '0x[0-9a-f]\{40\}' | head -1)
[ "${#addresses[@]}" -gt 0 ] || { echo "serve_load: no predictoor in the snapshot" >&2; exit 1; }

# urls CLIENT K: the K urls of a client, round robin from the client's own start.
urls() {
  local c="$1" k="$2" i
  local paths=("/" "/predictoors" "/feeds" "/predictoor/${addresses[$((c % ${#addresses[@]}))]}"
    "/feed/$contract")
  for i in $(seq 0 $((k - 1))); do
    printf -- '-o /dev/null %s%s\n' "$url" "${paths[$(((c + i) % ${#paths[@]}))]}"
  done
}

# cpu_seconds: the server's CPU time so far (user + system, every thread).
cpu_seconds() {
  awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); printf "%.1f", ($12 + $13) / hz }' \
    "/proc/$pid/stat"
}

# sample_threads FILE: the server's thread count every 20 ms into FILE, until killed.
sample_threads() {
  while :; do
    awk '/^Threads:/ { print $2 }' "/proc/$pid/status" >> "$1" 2> /dev/null || true
    sleep 0.02
  done
}

# phase NAME N K: N concurrent clients of K page loads each; prints the phase's row.
phase() {
  local name="$1" n="$2" k="$3" c
  local out="$dir/$name.times"
  : > "$out"
  : > "$dir/$name.threads"
  sample_threads "$dir/$name.threads" &
  local sampler=$!
  local start cpu0
  cpu0=$(cpu_seconds)
  start=$(date +%s.%N)
  local curls=()
  for c in $(seq 1 "$n"); do
    # shellcheck disable=SC2046
    curl -s -w '%{http_code} %{time_total}\n' $(urls "$c" "$k") >> "$out" &
    curls+=($!)
  done
  wait "${curls[@]}"
  local end cpu
  end=$(date +%s.%N)
  cpu=$(awk -v a="$cpu0" -v b="$(cpu_seconds)" 'BEGIN { printf "%.1f", b - a }')
  kill "$sampler"
  wait "$sampler" 2> /dev/null || true
  local codes peak
  codes=$(awk '{ n[$1]++ } END { for (c in n) printf "%s%s x%d", (k++ ? ", " : ""), c, n[c] }' "$out")
  peak=$(sort -n "$dir/$name.threads" | tail -1)
  sort -k2 -g "$out" | awk -v name="$name" -v n="$n" -v codes="$codes" -v peak="$peak" -v cpu="$cpu" \
    -v wall="$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.1f", e - s }')" '
    { t[NR] = $2 * 1000 }
    END {
      p50 = t[int((NR - 1) * 0.50) + 1]; p95 = t[int((NR - 1) * 0.95) + 1]
      printf "| %s | %d | %d | %s | %.0f | %.0f | %.0f | %s | %s | %s |\n", name, n, NR, codes, p50, p95, t[NR], wall, cpu, peak
    }'
}

echo
echo "| phase | clients | page loads | answers | p50 ms | p95 ms | max ms | wall s | server CPU s | peak threads |"
echo "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|"
phase one 1 $((pages * 10))
phase many "$clients" "$pages"
phase one_after 1 $((pages * 10))
echo
echo "Server peak RSS (VmHWM): $(awk '/^VmHWM:/ { printf "%.0f MB", $2 / 1024 }' "/proc/$pid/status")"
