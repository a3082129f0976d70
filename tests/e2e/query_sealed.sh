#!/usr/bin/env bash
# A sealed `query` (docs/operations.md, "query"), through the binary: no network, no extension
# download or load, no file or folder created anywhere (the lake, the working folder, $HOME), no file
# outside the lake read unless --allow-files is given; csv and json stream (memory stays flat on 5M
# rows), tables cap. Each refusal is one line on stderr (expected/sealed/*.err), exit 2, and leaves
# the lake byte for byte as it was. Set UPDATE_EXPECTED=1 to rewrite the expected files.
set -euo pipefail
source "$(dirname "$0")/lib.sh" query_sealed "$@"
expected="$src/tests/e2e/expected/sealed"
need_fixtures
# A HOME of its own, so that anything DuckDB would create there (~/.duckdb) shows.
export HOME="$work/home"
mkdir -p "$HOME"

# Everything under the working folder and HOME: every path, and the checksum of each file. One
# find and one md5sum for all the files (a checksum per file forked twice per file, 40 times a run:
# over half of this script's time).
snapshot() {
  (cd "$work" && find . \( -path ./snap.txt -o -path ./out.txt -o -path ./err.txt \
     -o -path ./before.txt -o -path ./after.txt \) -prune \
     -o \( -type f -exec md5sum {} + \) -o -print | sort)
}

# No export after the import: the queries read the lake.
cat > ppss.yaml <<'YAML'
lake_ss:
  lake_dir: lake
  st_timestr: 2024-07-26
  export_after_publish: false
YAML
run 0 -q raw import "$fixtures" --from 2024-07-26 --to 1721959200001
printf 'a,b\n1,x\n2,y\n' > outside.csv
snapshot > before.txt

# refused NAME RC SQL [ARGS...]: the statement is refused with one line on stderr, nothing on stdout,
# exit RC, and nothing anywhere changed since before.txt, taken once before the first refusal (each
# refusal leaves everything as it was, so its "after" was the next one's "before").
refused() {
  local name="$1" rc="$2"
  shift 2
  run "$rc" query "$@"
  snapshot > after.txt
  [ ! -s out.txt ] || fail "$name: wrote to stdout: $(cat out.txt)"
  [ "$(wc -l < err.txt)" -eq 1 ] || { cat err.txt >&2; fail "$name: error is not one line"; }
  diff -u before.txt after.txt || fail "$name: changed files"
  check "$name.err" err.txt
}

# No network: an http:// path needs httpfs, which is neither downloaded nor loaded (even with
# --allow-files); no DNS lookup is made (the host does not exist, and the answer is immediate).
refused http 2 "SELECT * FROM 'http://predlake-no-such-host.invalid/x.csv'"
refused http_allow_files 2 "SELECT * FROM read_csv('https://predlake-no-such-host.invalid/x.csv')" --allow-files
# No extension: not autoloaded, not installed, not loaded by hand.
refused sqlite_scan 2 "SELECT * FROM sqlite_scan('other.db', 't')"
refused sqlite_scan_allow_files 2 "SELECT * FROM sqlite_scan('other.db', 't')" --allow-files
refused install 2 "INSTALL sqlite"
refused load 2 "LOAD sqlite"
# No file outside the lake without --allow-files.
refused read_csv 2 "SELECT * FROM read_csv('/etc/passwd')"
refused read_relative 2 "SELECT * FROM 'outside.csv'"
refused glob 2 "SELECT * FROM glob('/etc/*')"
# Nothing created: EXPORT (whose folder DuckDB creates while binding it), COPY TO, ATTACH.
refused export 2 "EXPORT DATABASE 'exported'"
refused export_allow_files 2 "EXPORT DATABASE 'exported'" --allow-files
refused explain_export 2 "EXPLAIN EXPORT DATABASE 'exported'" --allow-files
refused copy 2 "COPY pdr_payouts TO 'copied.csv'"
refused copy_allow_files 2 "COPY pdr_payouts TO 'copied.csv'" --allow-files
refused copy_select 2 "COPY (SELECT 1) TO 'copied.csv'" --allow-files
refused attach 2 "ATTACH 'other.duckdb' AS other"
refused attach_allow_files 2 "ATTACH 'other.duckdb' AS other" --allow-files
# The seal cannot be undone from inside.
refused set 2 "SET enable_external_access = true"
refused two_statements 2 "SELECT 1; EXPORT DATABASE 'exported'" --allow-files
[ ! -e "$HOME/.duckdb" ] || fail "query created ~/.duckdb"

# --allow-files reads files outside the lake, and nothing more.
snapshot > before.txt
run 0 query "SELECT a, b FROM read_csv('outside.csv') ORDER BY a" --format csv --allow-files
[ "$(cat out.txt)" = "$(printf 'a,b\n1,x\n2,y')" ] || fail "--allow-files: $(cat out.txt)"
run 0 query "SELECT count(*) > 0 AS ok FROM read_csv('/etc/passwd', header = false)" --format csv --allow-files
[ "$(cat out.txt)" = "$(printf 'ok\ntrue')" ] || fail "--allow-files /etc/passwd: $(cat out.txt)"
snapshot > after.txt
diff -u before.txt after.txt || fail "--allow-files changed files"
# The lake itself still reads without the flag.
run 0 query "SELECT count(*) AS n FROM pdr_payouts" --format csv
[ "$(cat out.txt)" = "$(printf 'n\n2349')" ] || fail "the lake does not read: $(cat out.txt)"

# ---- Streaming: csv and json rows are written as they are produced; 5M rows stay under 300 MB.
# Under AddressSanitizer (the sanitizer tree) memory is not the product's: the release tree checks
# the bound, and the sanitizer tree streams 500k rows (5M take a minute there).
rows=5000000
asan_binary && rows=500000
for format in csv json; do
  /usr/bin/time -f '%M' -o rss.txt "$bin" query "SELECT i, i * 2 AS j, 'row ' || i AS s FROM range($rows) t(i)" \
    --format "$format" > big.out 2> err.txt || { cat err.txt >&2; fail "$rows rows as $format failed"; }
  rss_kb=$(tail -1 rss.txt)
  asan_binary || [ "$rss_kb" -lt 300000 ] || fail "5M rows as $format took ${rss_kb} kB"
  if [ "$format" = csv ]; then
    [ "$(wc -l < big.out)" -eq $((rows + 1)) ] || fail "csv: $(wc -l < big.out) lines"
  else
    [ "$(wc -l < big.out)" -eq $((rows + 2)) ] || fail "json: $(wc -l < big.out) lines"
  fi
done
rm -f big.out
# A table shows its first 10000 rows and says how many it left out.
run 0 query "SELECT i FROM range(10005) t(i)"
[ "$(wc -l < out.txt)" -eq 10003 ] || fail "capped table: $(wc -l < out.txt) lines"
tail -1 out.txt > tail.txt
check table_cap.txt tail.txt
echo "query_sealed: ok"
