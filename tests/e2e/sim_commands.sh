#!/usr/bin/env bash
# `predlake sim dump` and `predlake sim serve` through the binary: reproducible dumps, one-line errors with
# exit status 2, and a server that answers GraphQL and stops on SIGINT.
set -euo pipefail
source "$(dirname "$0")/lib.sh" sim_commands "$@"
cat > ppss.yaml <<'YAML'
sim_ss:
  seed: 7
  now: 2024-07-25_03:00
  start: 2024-07-25
  indexing_lag: 30s
YAML

# Same config and now: byte-identical dumps.
for table in pdr_predictions pdr_truevals pdr_payouts pdr_subscriptions pdr_slots; do
  "$bin" -q sim dump "$table" > "a_$table.csv"
  "$bin" -q sim dump "$table" > "b_$table.csv"
  cmp -s "a_$table.csv" "b_$table.csv" || fail "$table dumps differ"
  [ "$(wc -l < "a_$table.csv")" -gt 10 ] || fail "$table dump is nearly empty"
done
head -1 a_pdr_payouts.csv | grep -qx 'ID,token,user,slot,timestamp,payout,predvalue,truevalue,stake' \
  || fail "pdr_payouts header"
# --to cuts the window; the world before it does not depend on now.
"$bin" -q sim dump pdr_predictions --to 2024-07-25_01:00 > early.csv
sed -i 's/now: 2024-07-25_03:00/now: 2024-07-26_00:00/' ppss.yaml
"$bin" -q sim dump pdr_predictions --to 2024-07-25_01:00 > early_later_now.csv
cmp -s early.csv early_later_now.csv || fail "the world up to --to changed with now"
[ "$(wc -l < early.csv)" -lt "$(wc -l < a_pdr_predictions.csv)" ] || fail "--to did not cut"

# Bad input: one line on stderr, exit 2, nothing on stdout.
set +e
"$bin" sim dump pdr_nope > out.txt 2> err.txt; rc=$?
set -e
[ "$rc" -eq 2 ] || fail "unknown table exit $rc"
[ ! -s out.txt ] || fail "unknown table wrote to stdout"
[ "$(wc -l < err.txt)" -eq 1 ] || fail "unknown table error is not one line"
set +e
"$bin" sim dump pdr_slots --to someday > /dev/null 2> err.txt; rc=$?
set -e
[ "$rc" -eq 2 ] || fail "bad --to exit $rc"

# sim serve: prints its URL, answers, stops on SIGINT.
if ! command -v curl > /dev/null; then
  echo "sim_commands: skipped: curl missing (scripts/install_deps.sh installs it): sim serve not exercised"
  exit 77
fi
start_sim_serve
answer="$(curl -s -X POST -H 'Content-Type: application/json' \
  -d '{"query":"{ _meta { block { timestamp } } }"}' "$url")"
echo "$answer" | grep -q '"timestamp":1721951970' || fail "unexpected _meta answer: $answer"
code="$(curl -s -o /dev/null -w '%{http_code}' -X POST -d 'garbage' "$url")"
[ "$code" = 400 ] || fail "garbage body got HTTP $code"
kill -INT "$server_pid"
set +e
wait "$server_pid"; rc=$?
set -e
server_pid=""
[ "$rc" -eq 130 ] || fail "sim serve exit $rc after SIGINT"
echo "sim_commands: ok"
