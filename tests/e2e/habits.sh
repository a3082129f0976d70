#!/usr/bin/env bash
# pdr-backend habits through the binary (docs/operations.md, "pdr-backend habits"): the positional drop
# time; a leading `lake` (`pdr lake raw update ...`); any network name with web3_pp.<name>.subgraph_url (a local subgraph: `sim serve`); older
# pdr-backend keys ignored; did-you-mean warnings for near misses of our keys; `raw import` of a
# pdr-backend lake_data/duckdb.db. Expected lines in tests/e2e/expected/habits; UPDATE_EXPECTED=1
# rewrites them.
set -euo pipefail
source "$(dirname "$0")/lib.sh" habits "$@"
need_fixtures

lake_sum() { md5sum "$1/lake.duckdb" | cut -c1-32; }

# ---- A local subgraph: `sim serve`, and a pdr-backend file naming it under barge-* and development.
start_sim_serve -q

cat > ppss.yaml <<YAML
lake_ss:
  lake_dir: lake
  ohlcv_base_url: ${url%%/subgraphs/*}
  st_timestr: 2024-07-26_01:00
  fin_timestr: 2024-07-26_01:30
  feeds: ["binance BTC/USDT c 5m"]
lake-ss:
  lake_dir: elsewhere
sim_ss:
  do_plot: True
  final_img_filebase: final_img
  log_dir: logs
web3_pp:
  network: barge-predictoor-bot
  barge-predictoor-bot:
    address_file: ~/.ocean/ocean-contracts/artifacts/address.json
    rpc_url: http://localhost:8545
    subgraph_url: $url
  development:
    subgraph_ur: $url
YAML

# Every command reads it: the older keys pass, the near misses warn (to stderr, once each).
run 0 raw update ppss.yaml barge-predictoor-bot
grep 'warning' err.txt > warnings.txt
check warnings.txt warnings.txt
grep -q 'raw update on barge-predictoor-bot' err.txt || fail "no fetch from the local subgraph: $(cat err.txt)"
[ ! -e elsewhere ] || fail "lake-ss was read"
run 0 query ppss.yaml barge-predictoor-bot "SELECT count(*) > 0 AS fetched FROM pdr_predictions" --format csv
[ "$(cat out.txt)" = "$(printf 'fetched\ntrue')" ] || fail "nothing fetched: $(cat out.txt)"
# development has no subgraph_url (only the typo): refused with one line naming what to set, lake unchanged.
before="$(lake_sum lake)"
run 2 raw update ppss.yaml development
grep -v warning err.txt > err1.txt
check unknown_network.err err1.txt
[ "$(lake_sum lake)" = "$before" ] || fail "the refused network changed the lake"
run 2 -n barge-other describe
check unknown_network_flag.err err.txt

# ---- The positional drop time, as pdr-backend's `pdr raw drop ppss.yaml NETWORK TIME` puts it (its
# export, on by default, is the newest run).
run 0 -q raw drop ppss.yaml barge-predictoor-bot 2024-07-26_01:15
run 0 runs ppss.yaml barge-predictoor-bot --limit 2 --format json
grep -q '"command": "raw drop"' out.txt || fail "no raw drop run: $(cat out.txt)"
grep -q '"window_start_ms": 1721956500000' out.txt || fail "the drop time was not used: $(cat out.txt)"
run 0 query ppss.yaml barge-predictoor-bot "SELECT count(*) AS n FROM pdr_predictions WHERE timestamp >= 1721956500000" --format csv
[ "$(cat out.txt)" = "$(printf 'n\n0')" ] || fail "rows after the drop time remain"
before="$(lake_sum lake)"
run 2 raw drop ppss.yaml barge-predictoor-bot
grep -v warning err.txt > err1.txt
check drop_no_time.err err1.txt
run 2 raw drop ppss.yaml barge-predictoor-bot 2024-07-26 --from 2024-07-26
grep -v warning err.txt > err1.txt
check drop_twice.err err1.txt
[ "$(lake_sum lake)" = "$before" ] || fail "a refused drop changed the lake"
# ---- pdr-backend's `pdr lake raw update ppss.yaml NETWORK`: a leading `lake` means the same.
run 0 -q lake raw update ppss.yaml barge-predictoor-bot
run 0 lake runs ppss.yaml barge-predictoor-bot --limit 2 --format json
grep -q '"command": "raw update"' out.txt || fail "no raw update run from \`lake raw update\`: $(cat out.txt)"
[ "$(lake_sum lake)" != "$before" ] || fail "\`lake raw update\` did not fetch the dropped rows again"
kill -TERM "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""

# ---- A typo inside one of our sections is still an error, with the near miss named.
printf 'lake_ss:\n  lake_dirr: lake\n' > typo.yaml
run 2 -c typo.yaml describe
check typo_key.err err.txt

# ---- raw import of a pdr-backend lake_data/duckdb.db (a DuckDB file holding the raw tables by name),
# as a folder or as the file, opened read-only: the same rows as the CSV import. (No export after
# the imports: the checks read the lakes' raw tables.)
cat > csv.yaml <<'YAML'
lake_ss:
  lake_dir: lake_csv
  st_timestr: 2024-07-26
  export_after_publish: false
YAML
cat > db.yaml <<'YAML'
lake_ss:
  lake_dir: lake_db
  st_timestr: 2024-07-26
  export_after_publish: false
YAML
run 0 -q -c csv.yaml raw import "$fixtures" --from 2024-07-26 --to 1721959200001
mkdir lake_data
cp lake_csv/lake.duckdb lake_data/duckdb.db
chmod a-w lake_data/duckdb.db
db_sum="$(md5sum < lake_data/duckdb.db)"
run 0 -c db.yaml raw import lake_data --from 2024-07-26 --to 1721959200001
grep -E '^predlake: pdr_' err.txt > import.txt
check import_db.txt import.txt
[ "$(md5sum < lake_data/duckdb.db)" = "$db_sum" ] || fail "the import changed duckdb.db"
# Every row of every raw table, as text, in one query per lake (each run of the binary opens the lake).
q=""
for t in pdr_predictions pdr_truevals pdr_payouts pdr_subscriptions pdr_slots; do
  q+="${q:+ UNION ALL }SELECT '$t' AS t, CAST(r AS VARCHAR) AS v FROM $t AS r"
done
"$bin" -c csv.yaml query "SELECT t, v FROM ($q) ORDER BY t, v" --format csv > a.csv
"$bin" -c db.yaml query "SELECT t, v FROM ($q) ORDER BY t, v" --format csv > b.csv
for t in pdr_predictions pdr_truevals pdr_payouts pdr_subscriptions pdr_slots; do
  grep -q "^\"\?$t\"\?," a.csv || fail "$t is empty after the CSV import"
done
cmp -s a.csv b.csv || fail "$(diff a.csv b.csv | head -3 | cut -c1-60) differs between the CSV and the duckdb.db import"
# The file itself, again: every row is present already.
run 0 -c db.yaml raw import lake_data/duckdb.db
grep -q 'pdr_slots: 260 rows read from 1 file(s), 0 new' err.txt || fail "re-import: $(cat err.txt)"
echo "habits: ok"
