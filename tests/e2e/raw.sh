#!/usr/bin/env bash
# `raw update` and `raw import` through the binary: fetching from `sim serve` over HTTP (as a real
# network, through web3_pp.<network>.subgraph_url) with injected faults, a kill in the middle and
# reruns, ends with every raw table equal to `sim dump`; the in-process default network gives the
# same; importing the reference fixtures gives their row counts, twice changes nothing, and a
# malformed CSV is one line naming file:line, exit 3, nothing imported.
#
# raw.sh PREDLAKE_BINARY [SECTION]: SECTION is sim, network, http, http_noexchange or import (CTest runs
# each as its own test, in parallel), or all (the default). Exits 77 (skipped) when a prerequisite is missing: the reference
# fixtures for import (a run of all sections runs the others first).
set -euo pipefail
sections="sim network http http_noexchange import"
source "$(dirname "$0")/lib.sh" raw "$@"
update_pid=""
on_exit() {
  if [ -n "$update_pid" ] && kill -0 "$update_pid" 2>/dev/null; then kill -9 "$update_pid" 2>/dev/null || true; fi
}
tables="pdr_predictions pdr_truevals pdr_payouts pdr_subscriptions pdr_slots"

sim_section() {
  cat <<'YAML'
sim_ss:
  seed: 3
  now: 2024-07-25_09:00
  start: 2024-07-25
  indexing_lag: 30s
  pairs: [BTC/USDT, ETH/USDT, SOL/USDT, XRP/USDT]
  predictoors: 20
YAML
}

# The lake's rows of a table rendered like sim dump (decimals without trailing zeros), up to W.
lake_csv() {
  local config="$1" table="$2" w="$3" cols
  case "$table" in
    pdr_predictions) cols="ID,contract,pair,timeframe,predvalue,D(stake),truevalue,timestamp,source,D(payout),slot,\"user\"" ;;
    pdr_truevals) cols="ID,token,timestamp,truevalue,slot,D(revenue),D(roundSumStakesUp),D(roundSumStakes)" ;;
    pdr_payouts) cols="ID,token,\"user\",slot,timestamp,D(payout),predvalue,truevalue,D(stake)" ;;
    pdr_subscriptions) cols="ID,pair,timeframe,source,tx_id,D(last_price_value),timestamp,\"user\"" ;;
    pdr_slots) cols="ID,timestamp,slot,truevalue,D(roundSumStakesUp),D(roundSumStakes),status" ;;
    pdr_ohlcv) cols="ID,exchange,pair,timeframe,timestamp,D(open),D(high),D(low),D(close),D(volume)" ;;
  esac
  cols="$(echo "$cols" | sed -E "s/D\(([A-Za-z_]+)\)/CASE WHEN \1 = 0 THEN '0' ELSE rtrim(rtrim(CAST(\1 AS VARCHAR), '0'), '.') END AS \1/g")"
  "$bin" -q -c "$config" query "SELECT $cols FROM $table WHERE timestamp < $w ORDER BY timestamp, ID" \
    --format csv
}

# read_watermarks CONFIG: the raw tables' watermarks, "TABLE MS" lines in watermarks.txt, in one run of
# the binary (each run opens the lake: one per table was a fifth of these sections' runs).
read_watermarks() {
  local list
  list="$(printf "'%s'," $tables)"
  "$bin" -q -c "$1" query "SELECT table_name, watermark_ms FROM predlake_watermarks
    WHERE table_name IN (${list%,})" --format csv | tail -n +2 | tr -d '"' | tr ',' ' ' > watermarks.txt
}
# watermark TABLE: its watermark in watermarks.txt (empty when it has none).
watermark() {
  awk -v t="$1" '$1 == t { print $2 }' watermarks.txt
}

# The candles of a `sim dump pdr_ohlcv` (on stdin) that are final by the exchange's clock: closed
# by its now, 09:00, less the 30 s margin, which is the head (docs/ohlcv.md).
final_only() {
  awk -F, -v final="$head_ms" 'NR == 1 || $5 + ($4 == "5m" ? 300000 : 3600000) <= final'
}

# Every raw table equals the ground truth up to its watermark, which is at the indexed head.
check_equals_dump() {
  local config="$1" head_ms="$2"
  read_watermarks "$config"
  for table in $tables; do
    w="$(watermark "$table")"
    [ "$w" = "$head_ms" ] || fail "$table watermark $w, expected the head $head_ms"
    lake_csv "$config" "$table" "$w" > "lake_$table.csv"
    "$bin" -q -c sim.yaml sim dump "$table" --to "$w" > "dump_$table.csv"
    cmp -s "lake_$table.csv" "dump_$table.csv" || {
      diff "lake_$table.csv" "dump_$table.csv" | head -5 >&2
      fail "$table differs from sim dump"
    }
    [ "$(wc -l < "lake_$table.csv")" -gt 20 ] || fail "$table is nearly empty"
  done
  # The candles (docs/ohlcv.md): every stream at its last candle final by the exchange's clock
  # (closed 30 s before its now, 09:00: the 5m streams at 08:55, the 1h ones at 08:00), and equal
  # to the simulated exchange.
  local streams
  streams="$("$bin" -q -c "$config" query "SELECT count(*) FROM predlake_watermarks WHERE table_name LIKE 'pdr_ohlcv:%' AND watermark_ms = CASE WHEN table_name LIKE '%:5m' THEN $((head_ms - 270000)) ELSE $((head_ms - 3570000)) END" --format csv | tail -1)"
  [ "$streams" = 8 ] || fail "$streams of 8 candle streams at their last final candle"
  lake_csv "$config" pdr_ohlcv "$head_ms" > lake_pdr_ohlcv.csv
  # The candles final by the exchange's clock (now, 09:00, less the 30 s margin = the head): those
  # that closed by then.
  "$bin" -q -c sim.yaml sim dump pdr_ohlcv --to "$head_ms" | final_only > dump_pdr_ohlcv.csv
  cmp -s lake_pdr_ohlcv.csv dump_pdr_ohlcv.csv || {
    diff lake_pdr_ohlcv.csv dump_pdr_ohlcv.csv | head -5 >&2
    fail "pdr_ohlcv differs from sim dump"
  }
}

# Head of the simulated world: now - 30 s.
head_ms=1721897970000

# sim.yaml: the world (and the in-process network's lake); every section's `sim dump` reads it.
{ sim_section; printf 'lake_ss:\n  lake_dir: lake_sim\n  st_timestr: 2024-07-25\n  fin_timestr: now\n'; } > sim.yaml

# 1. The default network, in-process.
section_sim() {
# An end before the start is a usage error: one line, exit 2, no lake created (tests/e2e/safety.sh has
# the other first-run mistakes).
rc=0
"$bin" -c sim.yaml raw update --to 2024-07-24 2> err.txt || rc=$?
[ "$rc" -eq 2 ] || fail "raw update --to before the start exited $rc: $(cat err.txt)"
[ "$(cat err.txt)" = "predlake: --to: 2024-07-24T00:00:00Z is not after the start 2024-07-25T00:00:00Z (lake_ss.st_timestr): nothing would be done" ] \
  || fail "raw update --to before the start: $(cat err.txt)"
[ ! -e lake_sim ] || fail "raw update --to before the start created the lake"
"$bin" -q -c sim.yaml raw update --to 2024-07-25_01:00
"$bin" -q -c sim.yaml raw update --to 2024-07-25_04:00
"$bin" -q -c sim.yaml raw update
check_equals_dump sim.yaml "$head_ms"
runs="$("$bin" -q -c sim.yaml query "SELECT count(*) FROM predlake_runs WHERE command = 'raw update' AND status = 'succeeded'" --format csv | tail -1)"
[ "$runs" = 3 ] || fail "expected 3 succeeded runs, got $runs"
# The lake knows its network: a command for another network is one line, exit 2, and no run.
network="$("$bin" -q -c sim.yaml query "SELECT value FROM predlake_meta WHERE key = 'network'" --format csv | tail -1)"
[ "$network" = sim ] || fail "the lake records network '$network', expected sim"
set +e
"$bin" -c sim.yaml -n sapphire-testnet raw update > out.txt 2> err.txt; rc=$?
set -e
[ "$rc" -eq 2 ] || fail "another network exit $rc: $(cat err.txt)"
[ "$(wc -l < err.txt)" -eq 1 ] || fail "another network error is not one line: $(cat err.txt)"
grep -q "holds sim data; refusing to work on it for network sapphire-testnet" err.txt \
  || fail "another network: $(cat err.txt)"
all_runs="$("$bin" -q -c sim.yaml query "SELECT count(*) FROM predlake_runs" --format csv | tail -1)"
[ "$all_runs" = 6 ] || fail "the refused command recorded a run ($all_runs runs: 3 raw updates and their exports expected)"

# A lake that starts before the world (sim_ss.start, 2024-07-25): the simulated exchange serves the
# candles before it and the lake stores them; sim dump, from lake_ss.st_timestr by default, lists the
# same, and --from cuts it.
{ sim_section; printf 'lake_ss:\n  lake_dir: lake_early\n  st_timestr: 2024-07-24_20:00\n  fin_timestr: now\n  export_after_publish: false\n'; } > early.yaml
"$bin" -q -c early.yaml raw update
lake_csv early.yaml pdr_ohlcv "$head_ms" > lake_early_ohlcv.csv
"$bin" -q -c early.yaml sim dump pdr_ohlcv --to "$head_ms" | final_only > dump_early_ohlcv.csv
cmp -s lake_early_ohlcv.csv dump_early_ohlcv.csv || {
  diff lake_early_ohlcv.csv dump_early_ohlcv.csv | head -5 >&2
  fail "pdr_ohlcv of a lake starting before the world differs from sim dump"
}
# 4 hours before the world: 48 5m and 4 1h candles of each of the 4 pairs.
[ "$(awk -F, 'NR > 1 && $5 < 1721865600000' dump_early_ohlcv.csv | wc -l)" = 208 ] \
  || fail "sim dump pdr_ohlcv before the world's start: $(head -3 dump_early_ohlcv.csv)"
"$bin" -q -c early.yaml sim dump pdr_ohlcv --from 2024-07-25 --to "$head_ms" | final_only > dump_from.csv
cmp -s dump_from.csv dump_pdr_ohlcv.csv || fail "sim dump pdr_ohlcv --from the world's start differs"
for table in $tables; do
  "$bin" -q -c early.yaml sim dump "$table" --to "$head_ms" > "dump_early_$table.csv"
  cmp -s "dump_early_$table.csv" "dump_$table.csv" || fail "$table: events before the world's start"
done
# A lake that starts inside the world, mid-epoch: every table equals its dump, which starts there.
{ sim_section; printf 'lake_ss:\n  lake_dir: lake_late\n  st_timestr: 2024-07-25_03:07\n  fin_timestr: now\n  export_after_publish: false\n'; } > late.yaml
"$bin" -q -c late.yaml raw update
for table in $tables pdr_ohlcv; do
  lake_csv late.yaml "$table" "$head_ms" > "lake_late_$table.csv"
  if [ "$table" = pdr_ohlcv ]; then
    "$bin" -q -c late.yaml sim dump "$table" --to "$head_ms" | final_only > "dump_late_$table.csv"
  else
    "$bin" -q -c late.yaml sim dump "$table" --to "$head_ms" > "dump_late_$table.csv"
  fi
  cmp -s "lake_late_$table.csv" "dump_late_$table.csv" || fail "$table of a lake starting at 03:07 differs from sim dump"
  [ "$(wc -l < "dump_late_$table.csv")" -gt 20 ] && [ "$(wc -l < "dump_late_$table.csv")" -lt "$(wc -l < "dump_$table.csv")" ] \
    || fail "sim dump $table from 03:07 did not cut"
done
}

# Sections 2 and 3 (and section 1's lakes but lake_sim, whose runs it counts with their exports)
# have no export after the publishes: they check the raw tables, and an export is two fifths of a
# small run's CPU.
# 2. The real network's habits (docs/raw.md): a replica behind the head and bursts of throttling and
# too-expensive answers. `-v` shows each retry as it happens, and as many as the ledger counts; the lake
# still ends equal to the dump, once a run's head is the world's (a head read from the replica is older).
section_network() {
{ sim_section; cat <<'YAML'
  faults:
    lagging_replica: 0.1
    replica_lag: 20m
    throttle_burst: 0.15
    throttle_burst_length: 3
    seed: 9
lake_ss:
  lake_dir: lake_network
  st_timestr: 2024-07-25
  export_after_publish: false
  fin_timestr: now
YAML
} > network.yaml
: > retries.txt
for _ in 1 2 3 4 5; do
  "$bin" -v -c network.yaml raw update > /dev/null 2> err.txt || fail "raw update: $(tail -3 err.txt)"
  grep '^predlake: retry [0-9]* in [0-9a-z]* (' err.txt >> retries.txt || true
  at_head=1
  read_watermarks network.yaml
  for table in $tables; do
    [ "$(watermark "$table")" = "$head_ms" ] || at_head=0
  done
  [ "$at_head" = 1 ] && break
done
[ "$at_head" = 1 ] || fail "five runs never reached the head"
check_equals_dump network.yaml "$head_ms"
for kind in behind throttled; do
  grep -q "($kind): " retries.txt || fail "-v showed no '$kind' retry: $(head -3 retries.txt)"
done
grep -q '(throttled): pdr_[a-z]* \[2024-07-25T' retries.txt || fail "a retry line does not name its table and window"
counted="$("$bin" -q -c network.yaml query "SELECT sum(r.value::BIGINT) FROM predlake_runs,
  LATERAL (SELECT unnest(map_values(CAST(json_extract(detail, '$.retries') AS MAP(VARCHAR, BIGINT))))) AS r(value)
  WHERE command = 'raw update'" --format csv | tail -1)"
[ "$counted" = "$(wc -l < retries.txt)" ] || fail "-v showed $(wc -l < retries.txt) retries, the ledger counts $counted"
# -q and -v together are a usage error.
rc=0
"$bin" -q -v -c network.yaml raw update > out.txt 2> err.txt || rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l < err.txt)" -eq 1 ] || fail "-q -v exited $rc: $(cat err.txt)"
}

# sim serve with faults, in the background (start_sim_serve sets server_pid and url).
start_faulty_sim_serve() {
  { sim_section; cat <<'YAML'
  faults:
    http_5xx: 0.05
    http_429: 0.01
    graphql_error: 0.03
    malformed: 0.03
    seed: 5
YAML
  } > serve.yaml
  start_sim_serve -c serve.yaml
}

# 3. Over HTTP from sim serve with faults, killed once, rerun until it succeeds (predlake's own HTTP
# client: no curl needed).
section_http() {
start_faulty_sim_serve
# The candles come from the same server (its exchange endpoint), faults included.
{ sim_section; printf 'lake_ss:\n  lake_dir: lake_http\n  st_timestr: 2024-07-25\n  fin_timestr: now\n'
  printf '  export_after_publish: false\n'
  printf '  ohlcv_base_url: %s\n' "${url%%/subgraphs/*}"
  printf 'web3_pp:\n  sapphire-testnet:\n    subgraph_url: %s\n' "$url"; } > http.yaml

"$bin" -q -c http.yaml -n sapphire-testnet raw update > /dev/null 2>&1 &
update_pid=$!
# Kill it once it holds the lake (its run row is written right after the lock is taken), however
# slow the build (sanitizers) makes its start.
for _ in $(seq 1 500); do
  [ -s lake_http/lake.lock ] && break
  kill -0 "$update_pid" 2>/dev/null || break
  nap 0.02
done
sleep 1.5
kill -9 "$update_pid" 2>/dev/null || true
killed_rc=0
wait "$update_pid" 2>/dev/null || killed_rc=$?
update_pid=""
ok=""
for attempt in $(seq 1 15); do
  # A candle stream that failed is a warning, not a failure (docs/ohlcv.md): rerun until none did.
  if "$bin" -q -c http.yaml -n sapphire-testnet raw update 2> err.txt; then
    grep -q 'candle' err.txt || { ok=1; break; }
    grep -q 'lake_ss.ohlcv' err.txt || fail "a candle warning without its remedy: $(cat err.txt)"
    continue
  fi
  rc=$?
  [ "$rc" -eq 3 ] || fail "raw update exit $rc: $(cat err.txt)"
  [ "$(wc -l < err.txt)" -eq 1 ] || fail "error is not one line: $(cat err.txt)"
  grep -q '^predlake: ' err.txt || fail "error lacks the prefix: $(cat err.txt)"
done
[ -n "$ok" ] || fail "raw update never succeeded"
check_equals_dump http.yaml "$head_ms"
aborted="$("$bin" -q -c http.yaml query "SELECT count(*) FROM predlake_runs WHERE status = 'aborted'" --format csv | tail -1)"
# A run that finished before the signal arrived has nothing to abort.
# Whether the signal lands before or after the run row is written depends on the build's speed; the
# aborted marking itself is tested deterministically in tests/lake and tests/e2e/ops_commands.sh.
if [ "$killed_rc" -eq 137 ] && [ "$aborted" -lt 1 ]; then
  echo "raw: note: the kill landed before the run was recorded"
fi

# 3b. An unreachable subgraph: exit 3, one line naming the URL, watermarks unchanged. (A short
# retry budget: how many times and how long an unreachable URL is retried is tests/source_gql's.)
{ sim_section; printf 'lake_ss:\n  lake_dir: lake_http\n  st_timestr: 2024-07-25\n  fin_timestr: now\n'
  printf '  retry_budget: 2s\n'
  printf 'web3_pp:\n  sapphire-testnet:\n    subgraph_url: http://127.0.0.1:9/none\n'; } > dead.yaml
set +e
"$bin" -c dead.yaml -n sapphire-testnet raw update > out.txt 2> err.txt; rc=$?
set -e
[ "$rc" -eq 3 ] || fail "unreachable subgraph exit $rc"
[ "$(wc -l < err.txt)" -eq 1 ] || fail "unreachable error is not one line: $(cat err.txt)"
grep -q 'http://127.0.0.1:9/none' err.txt || fail "error does not name the URL: $(cat err.txt)"
check_equals_dump http.yaml "$head_ms"
kill -INT "$server_pid"
wait "$server_pid" 2>/dev/null || true
server_pid=""
}

# 3c. An exchange this host cannot use (451 restricted location, here an address where nothing
# answers): the subgraph tables are stored and the run succeeds (exit 0) with one warning naming the
# streams, the error and the remedy; the lake records the streams as failing. (Its own section: the
# candles' retries wait, beside section http's.)
section_http_noexchange() {
start_faulty_sim_serve
{ sim_section; printf 'lake_ss:\n  lake_dir: lake_noexchange\n  st_timestr: 2024-07-25\n  fin_timestr: now\n'
  printf '  export_after_publish: false\n'
  printf '  ohlcv_base_url: http://127.0.0.1:9\n'
  printf 'web3_pp:\n  sapphire-testnet:\n    subgraph_url: %s\n' "$url"; } > noexchange.yaml
"$bin" -c noexchange.yaml -n sapphire-testnet update --to 2024-07-25_04:00 > out.txt 2> err.txt ||
  fail "update without an exchange exited $?: $(cat err.txt)"
[ "$(grep -c 'candle' err.txt)" -eq 1 ] || fail "not one candle warning: $(cat err.txt)"
grep -q 'no candles for 8 candle streams' err.txt || fail "the warning names no streams: $(cat err.txt)"
grep -q 'lake_ss.ohlcv_base_url' err.txt || fail "the warning names no remedy: $(cat err.txt)"
[ "$("$bin" -q -c noexchange.yaml query "SELECT checkpoint_ms FROM predlake_checkpoint" --format csv | tail -1)" = 1721880000000 ] ||
  fail "the ETL did not reach --to without the exchange"
[ "$("$bin" -q -c noexchange.yaml query "SELECT count(*) FROM predlake_ohlcv_streams WHERE status = 'failing'" --format csv | tail -1)" = 8 ] ||
  fail "the failing streams are not recorded"
kill -INT "$server_pid"
wait "$server_pid" 2>/dev/null || true
server_pid=""
}

# 4. raw import of the reference fixtures.
section_import() {
need_fixtures || return 0
printf 'lake_ss:\n  lake_dir: lake_import\n' > import.yaml
counts() {
  "$bin" -q -c import.yaml query "SELECT (SELECT count(*) FROM pdr_predictions) || ' ' || (SELECT count(*) FROM pdr_payouts) || ' ' || (SELECT count(*) FROM pdr_truevals) || ' ' || (SELECT count(*) FROM pdr_slots) || ' ' || (SELECT count(*) FROM pdr_subscriptions)" --format csv | tail -1
}
mkdir -p bad/lake_data
cp "$fixtures"/*.csv bad/lake_data/
sed -i '120s/,true,/,maybe,/' bad/lake_data/pdr_predictions.csv
set +e
"$bin" -c import.yaml raw import bad/lake_data > out.txt 2> err.txt; rc=$?
set -e
[ "$rc" -eq 3 ] || fail "malformed CSV exit $rc"
[ "$(wc -l < err.txt)" -eq 1 ] || fail "malformed CSV error is not one line: $(cat err.txt)"
grep -q 'pdr_predictions.csv:120: ' err.txt || fail "error lacks file:line: $(cat err.txt)"
[ "$(counts)" = "0 0 0 0 0" ] || fail "a failed import left rows: $(counts)"
"$bin" -q -c import.yaml raw import "$fixtures" --from 2024-07-26 --to 2024-07-26_02:00
[ "$(counts)" = "2369 2349 260 260 2140" ] || fail "import counts: $(counts)"
"$bin" -q -c import.yaml raw import "$fixtures" --from 2024-07-26 --to 2024-07-26_02:00
[ "$(counts)" = "2369 2349 260 260 2140" ] || fail "second import changed counts: $(counts)"
marks="$("$bin" -q -c import.yaml query "SELECT DISTINCT start_ms || '-' || watermark_ms FROM predlake_watermarks" --format csv | tail -n +2)"
[ "$marks" = "1721952000000-1721959200000" ] || fail "import watermarks: $marks"
set +e
"$bin" -c import.yaml raw import "$fixtures" --from 2024-07-26 > /dev/null 2> err.txt; rc=$?
set -e
[ "$rc" -eq 2 ] || fail "--from without --to exit $rc"
imported_for="$("$bin" -q -c import.yaml query "SELECT DISTINCT json_extract_string(detail, '$.network') FROM predlake_runs WHERE command = 'raw import' AND status = 'succeeded'" --format csv | tail -1)"
[ "$imported_for" = sim ] || fail "raw import recorded network '$imported_for'"
# A window ending in the future: one line, exit 2, nothing recorded.
runs_before="$("$bin" -q -c import.yaml query "SELECT count(*) FROM predlake_runs" --format csv | tail -1)"
set +e
"$bin" -c import.yaml raw import "$fixtures" --from 2024-07-26 --to 2024-07-27 > /dev/null 2> err.txt; rc=$?
set -e
[ "$rc" -eq 2 ] || fail "--to in the future exit $rc: $(cat err.txt)"
[ "$(wc -l < err.txt)" -eq 1 ] || fail "--to in the future error is not one line: $(cat err.txt)"
grep -q "is in the future" err.txt || fail "--to in the future: $(cat err.txt)"
runs_after="$("$bin" -q -c import.yaml query "SELECT count(*) FROM predlake_runs" --format csv | tail -1)"
[ "$runs_before" = "$runs_after" ] || fail "--to in the future recorded a run"
}

run_sections
