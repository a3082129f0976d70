#!/usr/bin/env bash
# The browser test harness (tests/browser, docs/web.md) proven on a fixture: headless chromium runs
# tests/browser/check_dashboard.mjs against the static fixture dashboard (tests/browser/fixture,
# served by a tiny node server) with the real assets (dashboard.js/css, and uPlot as the build
# fetched it).
#   good:    the fixture passes the full crawl (--all-periods --all-links): every page, chart,
#            table, CSV link, period link and link checks out.
#   broken:  the deliberately broken fixture fails the default crawl with the expected lines (a chart with bad JSON, a
#            table cell differing from the API, a missing stylesheet, a dead link, a CSV short of a
#            row, a freshness header without snapshot_age), and only those: the checker catches
#            failures.
# Exit 77 (skipped) without node, chromium or tests/browser/node_modules (npm ci is tried first).
# Usage: dashboard_fixture.sh PREDLAKE_BINARY [good|broken]  (no section: both)
#   PREDLAKE_UPLOT_DIR: uPlot's files (default <build>/_deps/uplot, where cmake/Uplot.cmake puts them)
#   PREDLAKE_SCREENSHOT_DIR: keep the good run's screenshots there (default: a temporary folder)
set -euo pipefail
sections="good broken"
source "$(dirname "$0")/lib.sh" dashboard_fixture "$@"
build="$(dirname "$bin")"
browser_dir="$src/tests/browser"
uplot_dir="${PREDLAKE_UPLOT_DIR:-$build/_deps/uplot}"

need_browser "$browser_dir"
[ -f "$uplot_dir/uPlot.iife.min.js" ] || fail "no uPlot in $uplot_dir (configure the build first)"

# start_fixture [--broken]: the fixture server in the background; its URL in $url.
start_fixture() {
  node "$browser_dir/fixture/server.mjs" "$uplot_dir" "$@" > "$work/server.out" 2> "$work/server.err" &
  server_pid=$!
  url=""
  for _ in $(seq 100); do
    url="$(head -1 "$work/server.out" 2>/dev/null || true)"
    [ -n "$url" ] && break
    kill -0 "$server_pid" 2>/dev/null || fail "the fixture server died: $(cat "$work/server.err")"
    nap 0.1
  done
  [ -n "$url" ] || fail "the fixture server printed no URL"
}
stop_fixture() {
  kill -TERM "$server_pid"
  wait "$server_pid" || true
  server_pid=""
}

section_good() {
  start_fixture
  local shots="${PREDLAKE_SCREENSHOT_DIR:-$work/shots}"
  set +e
  # The full crawl here (every period link and every link on every page); the broken run below
  # and the real server's test use the default, lighter one.
  node "$browser_dir/check_dashboard.mjs" "$url" "$shots" --all-periods --all-links \
    > "$work/good.out" 2> "$work/good.err"
  local rc=$?
  set -e
  stop_fixture
  [ "$rc" -eq 0 ] || { cat "$work/good.out" "$work/good.err" >&2; fail "the good fixture: exit $rc"; }
  # The crawl reached every kind of page and saved each at both widths.
  for name in overview predictoors feeds runs; do
    [ -s "$shots/$name.png" ] && [ -s "$shots/$name-narrow.png" ] || fail "no screenshot $name"
  done
  ls "$shots" | grep -q '^predictoor-0x' || fail "no predictoor detail page was checked"
  ls "$shots" | grep -q '^feed-0x' || fail "no feed detail page was checked"
  grep -q '^check_dashboard: 8 pages checked, 0 failure(s)' "$work/good.err" \
    || fail "the good fixture: $(cat "$work/good.err")"
  # Every page's four period links were clicked (the full crawl).
  grep -q '^check_dashboard: also 32 pages opened by period links' "$work/good.err" \
    || fail "the good fixture's full crawl: $(cat "$work/good.err")"
  sed 's/^/dashboard_fixture: good: /' "$work/good.err"
}

section_broken() {
  start_fixture --broken
  set +e
  # No screenshots: the good run checks them, and they are a third of a crawl's time.
  node "$browser_dir/check_dashboard.mjs" "$url" - > "$work/broken.out" 2> "$work/broken.err"
  local rc=$?
  set -e
  stop_fixture
  [ "$rc" -eq 1 ] || { cat "$work/broken.out" "$work/broken.err" >&2; fail "the broken fixture: exit $rc, expected 1"; }
  local want
  while IFS= read -r want; do
    grep -qxF "$want" "$work/broken.out" || { cat "$work/broken.out" >&2; fail "missing: $want"; }
  done <<'WANT'
FAIL /predictoors: chart #cash_pnl not drawn: This chart cannot be shown: its data is not valid JSON (Unexpected end of JSON input).
FAIL /predictoors: console error: pl-chart #cash_pnl: its data is not valid JSON (Unexpected end of JSON input) (/assets/dashboard.js)
FAIL /predictoors: chart #cash_pnl's JSON does not parse
FAIL /predictoors: table #leaderboard row 3 column cash_pnl: the page has "12345.6", the API "-1412.8798"
FAIL /predictoors?period=1d: table #leaderboard row 3 column cash_pnl: the page has "12345.6", the API "-201.8891"
FAIL /feeds: HTTP 404 for /assets/missing.css
FAIL /feeds?period=1m: HTTP 404 for /assets/missing.css
FAIL /feeds: CSV /csv/feeds?table=feeds has 3 rows, the table 4
FAIL /feeds: the link /nowhere answers HTTP 404
FAIL /runs: freshness header has no data-field="snapshot_age"
FAIL /runs?period=all: freshness header has no data-field="snapshot_age"
WANT
  # Nothing else fails: the other pages are fine, and every line is one of the broken pages'.
  if grep -v -E '^FAIL /(predictoors|feeds|runs)(\?period=(1d|1w|1m|all))?: ' "$work/broken.out"; then
    fail "unexpected lines above (only /predictoors, /feeds and /runs are broken)"
  fi
  grep -q 'failure(s)' "$work/broken.err" || fail "no summary line: $(cat "$work/broken.err")"
  echo "dashboard_fixture: broken: $(grep -c '^FAIL' "$work/broken.out") failure lines, as expected"
}

run_sections
