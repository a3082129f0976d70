#!/usr/bin/env bash
# Fetches DuckDB with npm pack, verifies every tarball against its pinned sha256 and unpacks:
#   third_party/duckdb        DuckDB 1.5.6, the one predlake links: libduckdb.so from
#                             @duckdb/node-bindings-linux-x64 and duckdb.h from the `duckdb` package
#   third_party/duckdb-1.4.4  the previous release's libduckdb.so, for the tests only: a lake written by
#                             it must open, update and validate with 1.5.6 and the other way round
#                             (tests/e2e/duckdb_versions.sh, docs/scale.md)
# The header comes from duckdb@1.4.4: the `duckdb` npm package ended with 1.4.4 and no npm package ships
# a newer duckdb.h. 1.5's header declares every function of 1.4.4's with the same signature and keeps its
# enum values and structs (it only adds), and 1.5.6's library exports every function 1.4.4's does, so
# the same binary runs on either library (docs/scale.md, "DuckDB 1.5.6 against 1.4.4").
# Tarballs are cached in ${PREDLAKE_CACHE:-$HOME/.cache/predlake} so a second clone does not download again.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cache="${PREDLAKE_CACHE:-$HOME/.cache/predlake}"
version="1.5.6"
lib_pkg="@duckdb/node-bindings-linux-x64@1.5.6-r.1"
lib_tgz="duckdb-node-bindings-linux-x64-1.5.6-r.1.tgz"
lib_sha="1b9f82478539bb9a1d1df44bd103121a12ae52142c07158dc52b97d2ec1d69ff"
hdr_pkg="duckdb@1.4.4"
hdr_tgz="duckdb-1.4.4.tgz"
hdr_sha="5bb967dcbcd517670ba5f169f238fb9d6787e53752c60ebe24386169d76941ed"
old_version="1.4.4"
old_pkg="@duckdb/node-bindings-linux-x64@1.4.4-r.4"
old_tgz="duckdb-node-bindings-linux-x64-1.4.4-r.4.tgz"
old_sha="732fac4dc6b8f198870b9c4bb6ddf13544466daca00ad28ba2f1d80de5d7aa4b"
dest="$root/third_party/duckdb"
old_dest="$root/third_party/duckdb-$old_version"

# A folder is current when its marker names the pinned tarballs (a folder of an earlier pin is replaced).
stamp="$lib_sha $hdr_sha"
if [ -f "$dest/lib/libduckdb.so" ] && [ -f "$dest/include/duckdb.h" ] &&
  [ "$(cat "$dest/.verified" 2> /dev/null)" = "$stamp" ] && [ -f "$old_dest/lib/libduckdb.so" ] &&
  [ "$(cat "$old_dest/.verified" 2> /dev/null)" = "$old_sha" ]; then
  exit 0
fi
command -v npm > /dev/null || {
  echo "fetch_duckdb: npm is required to fetch DuckDB (apt-get install npm)" >&2
  exit 1
}
mkdir -p "$cache"
fetch() { # package, tarball, sha256
  if [ -f "$cache/$2" ] && echo "$3  $cache/$2" | sha256sum -c --status; then
    echo "fetch_duckdb: $1 from the cache, $cache/$2 (its sha256 checked)" >&2
    return 0
  fi
  rm -f "$cache/$2"
  echo "fetch_duckdb: downloading $1 from the npm registry (npm pack) into $cache, then checking its sha256" >&2
  (cd "$cache" && npm pack --silent "$1" > /dev/null)
  if ! echo "$3  $cache/$2" | sha256sum -c --status; then
    echo "fetch_duckdb: sha256 mismatch for $1 ($cache/$2); refusing to use it" >&2
    rm -f "$cache/$2"
    exit 1
  fi
  echo "fetch_duckdb: $1 sha256 verified"
}
fetch "$lib_pkg" "$lib_tgz" "$lib_sha"
fetch "$hdr_pkg" "$hdr_tgz" "$hdr_sha"
fetch "$old_pkg" "$old_tgz" "$old_sha"  # for the tests only
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/lib" "$tmp/h" "$tmp/old"
tar xzf "$cache/$lib_tgz" -C "$tmp/lib" package/libduckdb.so
tar xzf "$cache/$hdr_tgz" -C "$tmp/h" package/src/duckdb/src/include/duckdb.h
tar xzf "$cache/$old_tgz" -C "$tmp/old" package/libduckdb.so
rm -rf "$dest" "$old_dest"
mkdir -p "$dest/lib" "$dest/include" "$old_dest/lib"
mv "$tmp/lib/package/libduckdb.so" "$dest/lib/"
mv "$tmp/h/package/src/duckdb/src/include/duckdb.h" "$dest/include/"
mv "$tmp/old/package/libduckdb.so" "$old_dest/lib/"
echo "$stamp" > "$dest/.verified"
echo "$old_sha" > "$old_dest/.verified"
echo "fetch_duckdb: DuckDB $version ready in $dest (DuckDB $old_version for the tests in $old_dest)"
