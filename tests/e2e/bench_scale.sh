#!/usr/bin/env bash
# bench/scale.sh end to end on a lake of three hours (docs/scale.md): the benchmarks' lake builder
# (bench_scale_lake) and every command the benchmark measures keep working as the lake changes, and
# its measured lake is a sound one: `validate` passes on it before and after the three hourly
# updates, and the updates fetch and build the hours after its end. Skipped when the build has no
# benchmarks (`make test` builds them; the sanitizer tree does not).
set -euo pipefail
source "$(dirname "$0")/lib.sh" bench_scale "$@"

build="$(dirname "$bin")"
for b in bench_scale_lake bench_duck_floor; do
  [ -x "$build/bench/$b" ] || skip_all "no $build/bench/$b (cmake --build $build --target $b)"
done

rc=0
bash "$src/bench/scale.sh" "$build" "$work/scale" 10000 > table.md 2> log.txt || rc=$?
[ "$rc" -eq 0 ] || { cat log.txt >&2; fail "bench/scale.sh exited $rc"; }

# The table: its header, its rule and one row for the size, every figure filled in.
[ "$(wc -l < table.md)" -eq 3 ] || { cat table.md >&2; fail "not a table of one row"; }
row="$(tail -1 table.md)"
[[ "$row" =~ ^\|\ [0-9]+\ \|\ [0-9.]+\ \|\ [0-9.]+\ \|\ [0-9.]+\ \|\ [0-9.]+x\ \| ]] ||
  fail "the build's figures are missing: $row"
[ "$(grep -o '[0-9.]*([0-9.]*)' <<< "$row" | wc -l)" -eq 17 ] ||
  fail "not every command was timed (4 updates, etl drop, describe, 3 validates, etl rebuild, 2 exports, 5 floors): $row"
[[ "$row" =~ \|\ [0-9.]+x\;\ [0-9.]+x\;\ [0-9.]+x\ \|$ ]] || fail "the three ratios to the floors are missing: $row"

# The floor of the hour's change writes what the second update wrote: rows appended to its raw and
# built tables (predictions in both) and its changed rows updated, in one transaction.
plan="$work/scale/floor_write.sql"
for table in pdr_predictions bronze_pdr_predictions predlake_runs; do
  grep -q "^INSERT INTO \"$table\" SELECT .* FROM range([1-9][0-9]*)" "$plan" ||
    fail "the floor of the hour's change appends nothing to $table: $(cut -c1-80 "$plan")"
done
grep -q '^UPDATE predlake_checkpoint ' "$plan" || fail "the floor of the hour's change moves no checkpoint"
# On the copy of the lake from before that update: every row it appended, and rows changed in place.
out="$work/scale/floor_write.out"
[ "$(awk '$1 == "write_rows_appended" { print $2 }' "$out")" -ge "$(grep -o 'range([0-9]*)' "$plan" |
  tr -dc '0-9\n' | awk '{ s += $1 } END { print s }')" ] || fail "the floor appended less than its plan: $(cat "$out")"
[ "$(awk '$1 == "write_rows_updated" { print $2 }' "$out")" -gt 0 ] ||
  fail "the floor of the hour's change updated no row: $(cat "$out")"

# The lake it measured: the validates passed, and the rebuild after `etl drop` and the fourth
# update moved the checkpoint four hours past the lake's end.
lake="$work/scale/10000"
for name in validate validate_incremental validate_history; do
  tail -1 "$work/scale/$name.out" | grep -q '^validate: all [0-9]* checks passed' ||
    fail "$name on the benchmark's lake: $(tail -3 "$work/scale/$name.out")"
done
end_ms="$(awk '$1 == "end_ms" { print $2 }' "$lake/build.txt")"
predictions="$(awk '$1 == "predictions" { print $2 }' "$lake/build.txt")"
[ "$predictions" -gt 5000 ] || fail "the lake holds $predictions predictions"
cat > ppss.yaml <<YAML
lake_ss:
  lake_dir: $lake/lake
YAML
run 0 -q query "SELECT checkpoint_ms FROM predlake_checkpoint" --format csv
[ "$(tail -1 out.txt)" -eq $((end_ms + 4 * 3600 * 1000)) ] ||
  fail "checkpoint $(tail -1 out.txt) after the rebuild and the fourth update, expected the end + 4 h"
run 0 -q query "SELECT count(*) FROM bronze_pdr_predictions WHERE \"timestamp\" >= $end_ms" --format csv
[ "$(tail -1 out.txt)" -gt 0 ] || fail "the updates built no prediction after the lake's end"
echo "bench_scale: ok ($predictions predictions; $row)"
