#!/usr/bin/env bash
# scripts/sanitize_selection.sh [BUILD_DIR]: rewrites tests/sanitize_skip.txt, the unit tests the
# sanitizer tree leaves out because the tests it keeps run every basic block of src/ they run
# (CONTRIBUTING.md, "Test kinds, subsets and order"). It builds a block-map tree in BUILD_DIR
# (default build/blockmap: the sanitizer tree's tests and flags, without the sanitizers, every
# module compiled with -fsanitize-coverage=trace-pc), runs the sanitizer tree's tests there, one
# executable at a time on each core, recording each test's blocks, and hands the map to
# scripts/sanitize_selection.py. Run it on a machine otherwise idle (the tests' times weigh the
# choice), then commit the file; it needs python3. About 6 minutes on 2 cores, 4 of them the build.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build/blockmap}"
jobs="$(nproc)"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-O1 \
  -DPREDLAKE_BLOCK_MAP=ON -DPREDLAKE_BENCH=OFF >/dev/null
cmake --build "$build" -j "$jobs"
runs="$build/tests/block_map_runs.txt"
map="$build/blocks.tsv"
rm -f "$map" "$map".log.*
# The longest executables first, so that the two cores end together; then the rest.
first=(test_jobs test_etl test_raw test_ops test_serve test_cli test_lake)
mapfile -t lines < <(
  for exe in "${first[@]}"; do grep -P "^run\t$exe\t" "$runs" || true; done
  grep -P "^run\t" "$runs" | grep -vP "^run\t($(IFS='|'; echo "${first[*]}"))\t" || true)
failed=0
for line in "${lines[@]}"; do
  IFS=$'\t' read -r _ exe filter <<<"$line"
  if [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; then wait -n || failed=1; fi
  (cd "$build/tests" && PREDLAKE_BLOCKS_OUT="$PWD/../blocks.tsv" ./"$exe" --gtest_brief=1 \
    --gtest_filter="$filter" >"../blocks.tsv.log.$exe" 2>&1 ||
    { echo "sanitize_selection.sh: $exe failed (its log: $build/blocks.tsv.log.$exe)" >&2; exit 1; }) &
done
while [ "$(jobs -rp | wc -l)" -gt 0 ]; do wait -n || failed=1; done
[ "$failed" = 0 ] || exit 1
python3 scripts/sanitize_selection.py "$build" tests/sanitize_skip.txt
