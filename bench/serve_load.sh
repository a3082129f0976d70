#!/usr/bin/env bash
# Many readers (docs/serve.md, "Performance: many readers"): `predlake serve` (the real binary, its
# own process) on the snapshot of a lake bench/scale.sh built, answering one client (10 x PAGES page loads),
# then CLIENTS concurrent clients, then one client again, in the same run. A client is one curl process loading PAGES pages in
# turn on one keep-alive connection (the overview, the leaderboard, the feeds, a predictoor's and a
# feed's page, round robin); a page load is its HTML, where the server does the work (the assets
# are static). Prints per phase the answers by status, the latency p50/p95/max in ms, and the
# server's peak thread count (sampled every 20 ms) and peak RSS (VmHWM at the end).
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

"$bin" -c "$dir/ppss.yaml" serve --port 0 > "$dir/serve.out" 2> "$dir/serve.err" &
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
address=$(curl -sf "$url/api/predictoors" | grep -o '0x[0-9a-f]\{40\}' | head -1)
contract=$(curl -sf "$url/api/feeds" | grep -o '0x[0-9a-f]\{40\}' | head -1)
paths=("/" "/predictoors" "/feeds" "/predictoor/$address" "/feed/$contract")

# urls CLIENT K: the K urls of a client, round robin from the client's own start.
urls() {
  local c="$1" k="$2" i
  for i in $(seq 0 $((k - 1))); do
    printf -- '-o /dev/null %s%s\n' "$url" "${paths[$(((c + i) % ${#paths[@]}))]}"
  done
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
  local start
  start=$(date +%s.%N)
  local curls=()
  for c in $(seq 1 "$n"); do
    # shellcheck disable=SC2046
    curl -s -w '%{http_code} %{time_total}\n' $(urls "$c" "$k") >> "$out" &
    curls+=($!)
  done
  wait "${curls[@]}"
  local end
  end=$(date +%s.%N)
  kill "$sampler"
  wait "$sampler" 2> /dev/null || true
  local codes peak
  codes=$(awk '{ n[$1]++ } END { for (c in n) printf "%s%s x%d", (k++ ? ", " : ""), c, n[c] }' "$out")
  peak=$(sort -n "$dir/$name.threads" | tail -1)
  sort -k2 -g "$out" | awk -v name="$name" -v n="$n" -v codes="$codes" -v peak="$peak" \
    -v wall="$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.1f", e - s }')" '
    { t[NR] = $2 * 1000 }
    END {
      p50 = t[int((NR - 1) * 0.50) + 1]; p95 = t[int((NR - 1) * 0.95) + 1]
      printf "| %s | %d | %d | %s | %.0f | %.0f | %.0f | %s | %s |\n", name, n, NR, codes, p50, p95, t[NR], wall, peak
    }'
}

echo
echo "| phase | clients | page loads | answers | p50 ms | p95 ms | max ms | wall s | peak threads |"
echo "|---|---:|---:|---|---:|---:|---:|---:|---:|"
phase one 1 $((pages * 10))
phase many "$clients" "$pages"
phase one_after 1 $((pages * 10))
echo
echo "Server peak RSS (VmHWM): $(awk '/^VmHWM:/ { printf "%.0f MB", $2 / 1024 }' "/proc/$pid/status")"
