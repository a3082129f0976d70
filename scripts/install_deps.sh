#!/usr/bin/env bash
# Installs the Debian packages predlake builds and tests with (mimalloc as the executable's allocator;
# ccache as the compiler cache, ninja and lld for the build; curl, diffutils for the e2e scripts;
# time (/usr/bin/time) for bench/scale.sh, which tests/e2e/bench_scale.sh runs; chromium for the
# headless-browser test of the dashboard; python3 for scripts/sanitize_selection.py and its test),
# when any is missing, then fetches DuckDB.
set -euo pipefail
pkgs=(cmake g++ make clang-format libgtest-dev libgmock-dev libbenchmark-dev libyaml-cpp-dev
      libcli11-dev nlohmann-json3-dev libcurl4-openssl-dev libcpp-httplib-dev libfmt-dev
      libmimalloc-dev ccache ninja-build lld curl diffutils time chromium python3)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# npm may come from outside Debian (NodeSource); only install Debian's when none is on PATH.
command -v npm >/dev/null || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  echo "install_deps: installing ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
"$(dirname "$0")/fetch_duckdb.sh"
# The non-DuckDB Parquet reader of tests/e2e/export.sh (hyparquet, pinned with integrity hashes in
# tests/parquet_reader/package-lock.json); the test runs `npm ci` itself when this was skipped.
if command -v npm >/dev/null && [ ! -d "$(dirname "$0")/../tests/parquet_reader/node_modules/hyparquet" ]; then
  (cd "$(dirname "$0")/../tests/parquet_reader" && npm ci --no-audit --no-fund --silent) \
    || echo "install_deps: npm ci in tests/parquet_reader failed; tests/e2e/export.sh parquet will retry"
fi
# The headless-browser test's driver (playwright-core, pinned with integrity hashes in
# tests/browser/package-lock.json; it drives Debian's chromium and never downloads a browser); the
# tests/e2e/dashboard_*.sh scripts run `npm ci` themselves when this was skipped.
if command -v npm >/dev/null && [ ! -d "$(dirname "$0")/../tests/browser/node_modules/playwright-core" ]; then
  (cd "$(dirname "$0")/../tests/browser" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --silent) \
    || echo "install_deps: npm ci in tests/browser failed; tests/e2e/dashboard_*.sh will retry"
fi
