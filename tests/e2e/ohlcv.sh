#!/usr/bin/env bash
# Exchange candles (docs/ohlcv.md) through the binary: bad OHLCV config (a base URL that is not
# http(s), an unknown exchange) is one line naming the key, exit 2, nothing written; on `sim` the
# candles are fetched, every trueval agrees with them and `validate` passes; with
# sim_ss.wrong_truevals some disagree: `validate` fails (exit 1) naming trueval_vs_exchange and
# gold_feed_daily counts them; candles never hold the frontier back and a late candle is folded in
# exactly as a rebuild builds it; with lake_ss.ohlcv false nothing is fetched and the columns stay
# NULL.
#
# ohlcv.sh PREDLAKE_BINARY
set -euo pipefail
source "$(dirname "$0")/lib.sh" ohlcv "$@"

# The lakes that get built have no export after their publishes: the checks read the lake's tables.
world() {
  cat <<YAML
sim_ss:
  now: ${1:-2024-07-26_02:00}
  start: 2024-07-25_18:00
  pairs: [BTC/USDT, ETH/USDT]
  predictoors: 8
  wrong_truevals: ${2:-0}
YAML
}

# 1. Bad config: one line, exit 2, no lake.
for bad in "ohlcv_base_url: ftp://example.com|lake_ss.ohlcv_base_url: 'ftp://example.com' is not an http:// or https:// URL" \
           "ohlcv_exchange: kraken|lake_ss.ohlcv_exchange: unknown exchange 'kraken' (known: binance)"; do
  line="${bad%%|*}"
  want="${bad#*|}"
  { printf 'lake_ss:\n  lake_dir: lake_bad\n  %s\n' "$line"; world; } > bad.yaml
  for cmd in "raw update" "update" "describe"; do
    set +e
    # shellcheck disable=SC2086
    "$bin" -c bad.yaml $cmd > out.txt 2> err.txt
    rc=$?
    set -e
    [ "$rc" -eq 2 ] || fail "$cmd with '$line': exit $rc, expected 2: $(cat err.txt)"
    [ "$(wc -l < err.txt)" -eq 1 ] || fail "$cmd with '$line': not one line: $(cat err.txt)"
    grep -qF "bad.yaml:3: $want" err.txt || fail "$cmd with '$line': got $(cat err.txt)"
    [ ! -e lake_bad ] || fail "$cmd with '$line' wrote a lake"
  done
done

# 2. A sim world whose truevals are all right: candles fetched, validate passes.
{ printf 'lake_ss:\n  export_after_publish: false\n  lake_dir: lake_ok\n  st_timestr: 2024-07-25_18:00\n'; world; } > ok.yaml
"$bin" -q -c ok.yaml update || fail "update failed"
q() { "$bin" -q -c "$1" query "$2" --format csv | tail -1; }
[ "$(q ok.yaml "SELECT count(*) > 100 FROM pdr_ohlcv")" = true ] || fail "no candles"
[ "$(q ok.yaml "SELECT count(*) FROM bronze_pdr_slots WHERE trueval_agrees")" -gt 50 ] || fail "no slot checked"
"$bin" -q -c ok.yaml validate > out.txt || fail "validate failed on a right world: $(cat out.txt)"
grep -q '^trueval_vs_exchange  *pass  *0 ' out.txt || fail "trueval_vs_exchange did not pass: $(grep trueval out.txt)"

# 3. Some truevals wrong on purpose: validate fails naming the check; gold counts them per day.
{ printf 'lake_ss:\n  export_after_publish: false\n  lake_dir: lake_wrong\n  st_timestr: 2024-07-25_18:00\n'; world 2024-07-26_02:00 0.1; } > wrong.yaml
"$bin" -q -c wrong.yaml update || fail "update failed"
set +e
"$bin" -q -c wrong.yaml validate > out.txt 2> err.txt
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "validate on wrong truevals: exit $rc"
grep -q '^trueval_vs_exchange  *FAIL ' out.txt || fail "trueval_vs_exchange did not fail: $(grep trueval out.txt)"
bad_slots="$(q wrong.yaml "SELECT count(*) FROM bronze_pdr_slots WHERE NOT trueval_agrees")"
gold="$(q wrong.yaml "SELECT sum(trueval_disagreements) FROM gold_feed_daily")"
[ "$bad_slots" -gt 0 ] && [ "$bad_slots" = "$gold" ] || fail "disagreements: $bad_slots slots, gold $gold"
"$bin" -q -c wrong.yaml validate --format json > validate.json 2> /dev/null || true
grep -q '"trueval_vs_exchange"' validate.json || fail "no failed check in JSON"

# 4. Candles never hold the frontier back: at 02:10 the 1h candles end at 02:00 while the subgraph
# is at 02:09:30; the ETL goes to the subgraph's head, and the 1h slots of 02:00-02:09 wait for
# their candle (slots from 20:00 on: the earlier ones read candles before the start). When it
# arrives (a run at 03:10), the next update folds it into those slots, and
# the result equals a rebuild.
{ printf 'lake_ss:\n  export_after_publish: false\n  lake_dir: lake_held\n  st_timestr: 2024-07-25_18:00\n'; world 2024-07-26_02:10; } > held.yaml
"$bin" -q -c held.yaml update || fail "update failed"
"$bin" -q -c held.yaml describe --format json > describe.json
grep -q '"held_back_by": *"pdr_' describe.json || fail "describe: $(grep -o '"held_back_by"[^,]*' describe.json)"
grep -q '"held_back_by": *"pdr_ohlcv' describe.json && fail "a candle stream holds the frontier back"
[ "$(q held.yaml "SELECT checkpoint_ms FROM predlake_checkpoint")" = 1721959770000 ] || fail "the ETL waited for candles"
"$bin" -q -c held.yaml describe > describe.txt
grep -q 'pdr_ohlcv:binance:BTC/USDT:5m' describe.txt || fail "describe lists no candle stream"
{ printf 'lake_ss:\n  export_after_publish: false\n  lake_dir: lake_held\n  st_timestr: 2024-07-25_18:00\n'; world 2024-07-26_03:10; } > later.yaml
"$bin" -q -c later.yaml update || fail "the later update failed"
"$bin" -q -c later.yaml query "SELECT * EXCLUDE (run_id) FROM bronze_pdr_slots ORDER BY ID" --format csv > incremental.csv
[ "$(q later.yaml "SELECT count(*) FROM bronze_pdr_slots WHERE timeframe = '1h' AND slot >= 1721937600 AND slot * 1000 < 1721962800000 AND trueval_agrees IS NULL AND truevalue IS NOT NULL")" = 0 ] ||
  fail "1h slots left without their candles"
"$bin" -q -c later.yaml etl rebuild || fail "rebuild failed"
"$bin" -q -c later.yaml query "SELECT * EXCLUDE (run_id) FROM bronze_pdr_slots ORDER BY ID" --format csv > rebuilt.csv
cmp -s incremental.csv rebuilt.csv || { diff incremental.csv rebuilt.csv | head -5 >&2; fail "late candles: incremental differs from rebuild"; }

# 5. lake_ss.ohlcv false: no candles, NULL columns, nothing waits for them.
{ printf 'lake_ss:\n  export_after_publish: false\n  lake_dir: lake_off\n  st_timestr: 2024-07-25_18:00\n  ohlcv: false\n'; world 2024-07-26_02:10; } > off.yaml
"$bin" -q -c off.yaml update || fail "update failed"
[ "$(q off.yaml "SELECT count(*) FROM pdr_ohlcv")" = 0 ] || fail "candles fetched with ohlcv false"
[ "$(q off.yaml "SELECT count(*) FROM bronze_pdr_slots WHERE exchange_move IS NOT NULL OR trueval_agrees IS NOT NULL")" = 0 ] || fail "candle columns set"
[ "$(q off.yaml "SELECT checkpoint_ms FROM predlake_checkpoint")" = 1721959770000 ] || fail "the ETL waited: $(q off.yaml "SELECT checkpoint_ms FROM predlake_checkpoint")"
echo "ohlcv: ok"
