#!/usr/bin/env bash
# scripts/test_costs.sh [BUILD_DIR]: rewrites tests/test_costs.txt, the COST of every test (CTest
# starts the costliest first, so that a long test does not end the run alone), from the times CTest
# measured in BUILD_DIR (default build/release): its Testing/Temporary/CTestCostData.txt, which
# every ctest run there updates. Run the whole suite there first (`ctest -j2`), on a machine
# otherwise idle, then this, and commit the file. Tests under a second are left out (they cost 1).
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build/release}"
data="$build/Testing/Temporary/CTestCostData.txt"
[ -f "$data" ] || { echo "test_costs.sh: no $data: run ctest in $build first" >&2; exit 1; }
out=tests/test_costs.txt
{
  echo "# <seconds> <test>: what each test took in a release tree at -j2 on the 2-core machine,"
  echo "# written by scripts/test_costs.sh (tests/TestEnvironment.cmake.in reads it)."
  # CTestCostData.txt: "<test> <runs> <seconds>" lines, then "---" and the tests that failed.
  awk '/^---/ { exit } NF == 3 && $3 >= 1 { printf "%.1f %s\n", $3, $1 }' "$data" | sort -k1,1gr -k2,2
} > "$out.tmp"
mv "$out.tmp" "$out"
echo "test_costs.sh: $(grep -vc '^#' "$out") costs in $out"
