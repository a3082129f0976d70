#!/usr/bin/env bash
# Installs the Debian packages predlake builds and tests with (ccache as the compiler cache, ninja and
# lld for the build; curl, diffutils for the e2e scripts), when any is missing, then fetches DuckDB.
set -euo pipefail
pkgs=(cmake g++ make clang-format libgtest-dev libgmock-dev libbenchmark-dev libyaml-cpp-dev
      libcli11-dev nlohmann-json3-dev libcurl4-openssl-dev libcpp-httplib-dev libfmt-dev
      ccache ninja-build lld curl diffutils)
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
