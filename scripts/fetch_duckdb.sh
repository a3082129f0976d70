#!/usr/bin/env bash
# Fetches DuckDB 1.4.4 (library from @duckdb/node-bindings-linux-x64, header from duckdb) with npm pack,
# verifies both tarballs against pinned sha256 sums and unpacks them into third_party/duckdb.
# Tarballs are cached in ${PREDLAKE_CACHE:-$HOME/.cache/predlake} so a second clone does not download again.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dest="$root/third_party/duckdb"
cache="${PREDLAKE_CACHE:-$HOME/.cache/predlake}"
lib_pkg="@duckdb/node-bindings-linux-x64@1.4.4-r.4"
lib_tgz="duckdb-node-bindings-linux-x64-1.4.4-r.4.tgz"
lib_sha="732fac4dc6b8f198870b9c4bb6ddf13544466daca00ad28ba2f1d80de5d7aa4b"
hdr_pkg="duckdb@1.4.4"
hdr_tgz="duckdb-1.4.4.tgz"
hdr_sha="5bb967dcbcd517670ba5f169f238fb9d6787e53752c60ebe24386169d76941ed"

if [ -f "$dest/lib/libduckdb.so" ] && [ -f "$dest/include/duckdb.h" ] && [ -f "$dest/.verified" ]; then
  exit 0
fi
command -v npm >/dev/null || { echo "fetch_duckdb: npm is required to fetch DuckDB (apt-get install npm)" >&2; exit 1; }
mkdir -p "$cache"
fetch() {  # package, tarball, sha256
  if [ -f "$cache/$2" ] && echo "$3  $cache/$2" | sha256sum -c --status; then
    echo "fetch_duckdb: $1 from the cache, $cache/$2 (its sha256 checked)" >&2
    return 0
  fi
  rm -f "$cache/$2"
  echo "fetch_duckdb: downloading $1 from the npm registry (npm pack) into $cache, then checking its sha256" >&2
  (cd "$cache" && npm pack --silent "$1" >/dev/null)
  if ! echo "$3  $cache/$2" | sha256sum -c --status; then
    echo "fetch_duckdb: sha256 mismatch for $1 ($cache/$2); refusing to use it" >&2
    rm -f "$cache/$2"
    exit 1
  fi
}
fetch "$lib_pkg" "$lib_tgz" "$lib_sha"
fetch "$hdr_pkg" "$hdr_tgz" "$hdr_sha"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar xzf "$cache/$lib_tgz" -C "$tmp" package/libduckdb.so
mkdir -p "$tmp/h"
tar xzf "$cache/$hdr_tgz" -C "$tmp/h" package/src/duckdb/src/include/duckdb.h
rm -rf "$dest"
mkdir -p "$dest/lib" "$dest/include"
mv "$tmp/package/libduckdb.so" "$dest/lib/"
mv "$tmp/h/package/src/duckdb/src/include/duckdb.h" "$dest/include/"
touch "$dest/.verified"
echo "fetch_duckdb: DuckDB 1.4.4 ready in $dest"
