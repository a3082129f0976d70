#!/usr/bin/env bash
# The dashboard (`predlake serve`, docs/serve.md) in a real browser (docs/web.md): a small simulated
# lake, updated and exported, served on a free port; tests/browser/check_dashboard.mjs crawls it in
# headless chromium (every nav page and a few detail pages: no console errors or failed requests,
# the freshness header, charts drawn, tables equal to their API, CSV downloads, the period
# selector, links) and, when asked, saves a screenshot per page; the server is stopped with
# SIGTERM.
# Exit 77 (skipped) when the binary has no serve command, or without node, chromium or
# tests/browser/node_modules (npm ci is tried first).
# Usage: dashboard_browser.sh PREDLAKE_BINARY [SCREENSHOT_DIR]
#   SCREENSHOT_DIR (or PREDLAKE_SCREENSHOT_DIR): where the screenshots are saved (default: none taken)
set -euo pipefail
keep="${2:-${PREDLAKE_SCREENSHOT_DIR:-}}"
[ -z "$keep" ] || keep="$(mkdir -p "$keep" && cd "$keep" && pwd)"
source "$(dirname "$0")/lib.sh" dashboard_browser "$@"
browser_dir="$src/tests/browser"

"$bin" serve --help > /dev/null 2>&1 || skip_all "serve command not built"
command -v curl > /dev/null || skip_all "curl is missing"
need_browser "$browser_dir"

# A small world over three days, with payouts, refunds and canceled slots; one of its predictoors
# is "mine" (pinned first on the leaderboard, with a total row).
cat > ppss.yaml <<YAML
lake_ss:
  lake_dir: lake
  st_timestr: 2024-07-23
  fin_timestr: now
  export_after_publish: false
sim_ss:
  now: 2024-07-26_06:00
  start: 2024-07-23
  predictoors: 6
  pairs: BTC/USDT ETH/USDT
YAML
"$bin" -q update > update.out 2> update.err || fail "update: $(cat update.err)"
mine="$("$bin" -q query "SELECT min(\"user\") FROM bronze_pdr_predictions" --format csv --from-lake \
  | tail -n +2 | tr -d '"')"
[ -n "$mine" ] || fail "no predictoor in the sim lake"
cat >> ppss.yaml <<YAML
predictoor_ss:
  my_addresses: [$mine]
YAML
"$bin" -q export > export.out 2> export.err || fail "export: $(cat export.err)"

"$bin" serve --port 0 > serve.out 2> serve.err &
server_pid=$!
url=""
for _ in $(seq 100); do
  url="$(head -1 serve.out 2>/dev/null || true)"
  [ -n "$url" ] && break
  kill -0 "$server_pid" 2>/dev/null || fail "serve exited: $(cat serve.err)"
  nap 0.1
done
case "$url" in http://127.0.0.1:*) ;; *) fail "serve's first line is not its URL: '$url'" ;; esac
url="${url%/}/"
healthy=""
for _ in $(seq 100); do
  if curl -fsS "${url}healthz" > /dev/null 2>&1; then healthy=1; break; fi
  nap 0.1
done
[ -n "$healthy" ] || fail "${url}healthz did not answer 200: $(curl -sS "${url}healthz" 2>&1 | head -3)"

# Screenshots only when asked for: they are a third of the crawl's time.
set +e
node "$browser_dir/check_dashboard.mjs" "$url" "${keep:--}" > check.out 2> check.err
rc=$?
set -e
[ "$rc" -eq 0 ] || { cat check.out check.err >&2; fail "check_dashboard: exit $rc"; }

kill -TERM "$server_pid"
set +e
wait "$server_pid"
serve_rc=$?
set -e
server_pid=""
case "$serve_rc" in 0|143) ;; *) fail "serve exited $serve_rc after SIGTERM: $(tail -3 serve.err)" ;; esac
sed 's/^/dashboard_browser: /' check.err
