#!/usr/bin/env bash
# `predlake serve` (docs/serve.md) through the binary on a small simulated world: bad options and a
# missing lake (one line, exit 2/3), the URL as the first stdout line with --port 0, every page, its
# API and a CSV, 400 on a bad parameter, /healthz and /metrics, a busy port, SIGTERM (exit 143), 503
# before the first snapshot, and `serve --every` answering while its loop publishes and exports.
#   main:     the above but --every, on a simulated world.
#   every:    `serve --every` from no lake: its pages answer while its loop publishes and exports.
#   fixtures: the reference fixtures' leaderboard equals the metric definitions computed on the lake.
# Usage: serve.sh PREDLAKE_BINARY [main|every|fixtures]  (no section: all)
set -euo pipefail
sections="main every fixtures"
source "$(dirname "$0")/lib.sh" serve "$@"
command -v curl > /dev/null || skip_all "no curl"

one_line() {  # the error is one line naming what is wrong
  [ "$(wc -l < err.txt)" -eq 1 ] || fail "not one line: $(cat err.txt)"
  grep -q -- "$1" err.txt || fail "no '$1' in: $(cat err.txt)"
}

# start_server ARGS...: serve on a free port in the background; sets url.
start_server() {
  rm -f serve.out serve.err  # not the previous server's URL
  "$bin" ${global_args:-} serve --port 0 "$@" > serve.out 2> serve.err &
  server_pid=$!
  for _ in $(seq 1 100); do
    [ -s serve.out ] && [ "$(wc -l < serve.out)" -ge 1 ] && break  # a whole first line
    kill -0 "$server_pid" 2>/dev/null || fail "serve exited: $(cat serve.err)"
    nap 0.1
  done
  url="$(head -1 serve.out)"
  case "$url" in http://127.0.0.1:*/) ;; *) fail "first stdout line is not the URL: '$url'" ;; esac
}
stop_server() {  # SIGTERM: exit 143
  kill -TERM "$server_pid"
  set +e
  wait "$server_pid"
  local rc=$?
  set -e
  server_pid=""
  [ "$rc" -eq 143 ] || fail "serve exited $rc after SIGTERM: $(tail -3 serve.err)"
}
# get PATH: the HTTP status on stdout, the body in body.txt.
get() { curl -s -m 30 -o body.txt -w '%{http_code}' "${url%/}$1"; }

write_config() {
cat > ppss.yaml <<YAML
lake_ss:
  lake_dir: lake
  st_timestr: 2024-07-24
  fin_timestr: now
sim_ss:
  now: 2024-07-25_12:00
  start: 2024-07-24
  predictoors: 3
  pairs: BTC/USDT ETH/USDT
predictoor_ss:
  my_addresses: []
YAML
}

section_main() {
write_config

# ---- Bad options and a missing lake: one line, nothing started.
run 2 serve --port 70000
one_line -- "--port"
run 2 serve --every 0s
one_line "every"
run 2 serve --every soon
one_line "every"
run 3 serve --port 0
one_line "no lake at"
sed -i 's/my_addresses: \[\]/my_addresses: [0x12]/' ppss.yaml
run 2 serve --port 0
one_line "my_addresses"
sed -i 's/my_addresses: \[0x12\]/my_addresses: []/' ppss.yaml

# ---- A lake folder without a snapshot: 503 with a message, healthz 503.
mkdir lake
start_server
[ "$(get /)" = 503 ] || fail "/ without a snapshot: $(cat body.txt)"
grep -q 'no snapshot yet' body.txt || fail "503 page: $(cat body.txt)"
[ "$(get /healthz)" = 503 ] || fail "healthz without a snapshot"
stop_server

# ---- A lake and its snapshot.
"$bin" -q update
"$bin" -q export
start_server
for page in / /predictoors /feeds /runs; do
  [ "$(get "$page?period=all")" = 200 ] || fail "$page: $(head -c 300 body.txt)"
  grep -q '<table class="pl-table"' body.txt || fail "$page has no table"
  [ "$(get "/api$page?period=all")" = 200 ] || fail "/api$page: $(head -c 300 body.txt)"
  grep -q '"tables"' body.txt || fail "/api$page: $(head -c 300 body.txt)"
done
user="$(grep -o 'href="/predictoor/0x[0-9a-f]*' <(curl -s "${url}predictoors?period=all") | head -1 | cut -d/ -f3)"
[ -n "$user" ] || fail "no predictoor link"
[ "$(get "/predictoor/$user?period=all")" = 200 ] || fail "predictoor page: $(head -c 300 body.txt)"
contract="$(grep -o 'href="/feed/0x[0-9a-f]*' <(curl -s "${url}feeds?period=all") | head -1 | cut -d/ -f3)"
[ "$(get "/feed/$contract?period=all")" = 200 ] || fail "feed page: $(head -c 300 body.txt)"
[ "$(get "/csv/feeds?table=feeds&period=all")" = 200 ] || fail "csv"
head -1 body.txt | grep -q '^pair,timeframe,sales,contract,' || fail "csv header: $(head -1 body.txt)"
[ "$(get "/predictoors?period=2d")" = 400 ] || fail "a bad period is not 400"
grep -q 'period' body.txt || fail "400 page: $(cat body.txt)"
[ "$(get "/api/feeds?sort=nope")" = 400 ] || fail "a bad sort key is not 400"
[ "$(get /healthz)" = 200 ] || fail "healthz: $(cat body.txt)"
[ "$(get /metrics)" = 200 ] || fail "metrics"
for metric in predlake_snapshot_up predlake_snapshot_age_seconds predlake_checkpoint_lag_seconds \
              predlake_last_run_info predlake_table_rows predlake_waiting_updates; do
  grep -q "^$metric" body.txt || fail "no $metric in /metrics: $(cat body.txt)"
done
port="${url#http://127.0.0.1:}"
port="${port%/}"
run 2 serve --port "$port"
one_line "cannot listen"
stop_server
}

# ---- serve --every: the pages keep answering while the loop publishes and exports.
section_every() {
write_config
start_server --every 1s
for _ in $(seq 1 300); do
  [ "$(get /healthz)" = 200 ] && break
  nap 0.2
done
[ "$(get /healthz)" = 200 ] || fail "no snapshot from serve --every: $(tail -3 serve.err)"
snapshot_run() { get /metrics > /dev/null; grep '^predlake_snapshot_run ' body.txt | cut -d' ' -f2; }
first_run="$(snapshot_run)"
# Ask until the loop has published and exported again (a new snapshot's run is the export after
# the next update: two runs on), at least 10 times and at most 40: every answer is a 200.
answered=0
last_run="$first_run"
while [ "$answered" -lt 40 ]; do
  code="$(get "/api/predictoors?period=all")"
  [ "$code" = 200 ] || fail "serve --every answered $code while writing: $(head -c 300 body.txt)"
  answered=$((answered + 1))
  if [ "$answered" -ge 10 ]; then
    last_run="$(snapshot_run)"
    [ "$last_run" -le "$((first_run + 1))" ] || break
  fi
  nap 0.1
done
[ "$last_run" -gt "$first_run" ] || fail "no new snapshot while serving ($first_run -> $last_run)"
stop_server
! grep -q ',running,' <("$bin" -q runs --limit 0 --format csv) || fail "a run left running"
echo "serve: ok ($answered answers while the loop went from snapshot $first_run to $last_run)"
}

# ---- The reference fixtures (pdr-backend's mainnet CSVs): the leaderboard's cash P&L and counts equal
# the metric definitions computed on the lake.
section_fixtures() {
if need_fixtures; then
  cat > fixtures.yaml <<YAML
lake_ss:
  lake_dir: fxlake
  st_timestr: 2024-07-26
  fin_timestr: now
YAML
  global_args="-c fixtures.yaml"
  "$bin" -q $global_args raw import "$fixtures" --from 2024-07-26 --to 2024-07-26_02:00
  "$bin" -q $global_args etl update
  "$bin" -q $global_args export
  start_server
  [ "$(get "/csv/predictoors?table=predictoors&period=all")" = 200 ] || fail "fixtures csv: $(cat body.txt)"
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
           { print $col["user"] "," $col["predictions"] "," $col["cash_pnl"] "," $col["unrevealed"] }' \
    body.txt | tr -d '\r' | sort > served.csv
  "$bin" -q $global_args query --from-lake --format csv "SELECT user, count(*), CASE WHEN count(*) FILTER (WHERE
      status = 'paying' AND stake IS NULL) = 0 THEN coalesce(sum(payout) FILTER (WHERE status = 'paying'),
      0::DECIMAL(38, 18)) - coalesce(sum(stake) FILTER (WHERE status = 'paying'), 0::DECIMAL(38, 18)) END,
      count(*) FILTER (WHERE status = 'paying' AND predvalue IS NULL) FROM bronze_pdr_predictions
      GROUP BY user" | tail -n +2 | tr -d '\r' | sort > expected.csv
  [ -s expected.csv ] || fail "no predictoors in the fixtures' lake"
  diff expected.csv served.csv > diff.txt || fail "fixtures: the leaderboard differs from SQL: $(head -5 diff.txt)"
  stop_server
  echo "serve: the fixtures' leaderboard ($(wc -l < served.csv) predictoors) equals SQL on the lake"
fi
}

run_sections
