#!/usr/bin/env bash
# A newcomer's first commands through the binary and the build: the installed binary runs the README's
# `predlake ...` commands from any folder with the DuckDB library installed beside it (install); `query`
# reads its statement from a file or standard input, and a file it cannot read is one line, exit 2
# (query_input); scripts/fetch_duckdb.sh says what it fetches while it runs (fetch_messages); `make demo`
# and `make install` build the binary only (make_targets).
set -euo pipefail
sections="install query_input fetch_messages make_targets"
source "$(dirname "$0")/lib.sh" first_commands "$@"

build_dir="$(dirname "$bin")"

section_install() {
  [ -f "$build_dir/cmake_install.cmake" ] || { skip "$build_dir is not a CMake build folder"; return; }
  cmake --install "$build_dir" --prefix "$work/prefix" > install.log
  [ -x prefix/bin/predlake ] || fail "no bin/predlake: $(find prefix | head -20)"
  [ -f prefix/lib/predlake/libduckdb.so ] || fail "no lib/predlake/libduckdb.so: $(find prefix | head -20)"
  readelf -d prefix/bin/predlake | grep -q 'R.*PATH.*\[\$ORIGIN/../lib/predlake\]' \
    || fail "installed rpath: $(readelf -d prefix/bin/predlake | grep -i path)"
  # Moved elsewhere and run from another folder by name, with no build tree on its library path: the
  # README's commands as written.
  mv prefix moved
  mkdir elsewhere
  cd elsewhere
  cat > ppss.yaml << 'YAML'
lake_ss:
  lake_dir: lake
  st_timestr: 2024-07-25_23:00
  fin_timestr: 2024-07-26
sim_ss:
  now: 2024-07-26_02:00
YAML
  export PATH="$work/moved/bin:$PATH"
  loaded="$(ldd "$work/moved/bin/predlake" | sed -n 's/^\s*libduckdb.so => \(\S*\) .*/\1/p')"
  [ -n "$loaded" ] && [ "$(realpath "$loaded")" = "$work/moved/lib/predlake/libduckdb.so" ] \
    || fail "the installed binary does not load its own DuckDB: $(ldd "$work/moved/bin/predlake")"
  env -u LD_LIBRARY_PATH predlake version > out.txt || fail "installed predlake version failed"
  grep -q '^DuckDB v' out.txt || fail "version: $(cat out.txt)"
  env -u LD_LIBRARY_PATH predlake -q update || fail "installed predlake update failed"
  env -u LD_LIBRARY_PATH predlake query "SELECT count(*) > 0 AS built FROM bronze_pdr_predictions" \
    --format csv > out.txt
  [ "$(cat out.txt)" = "$(printf 'built\ntrue')" ] || fail "installed query: $(cat out.txt)"
  cd "$work"
}

section_query_input() {
  cat > ppss.yaml << 'YAML'
lake_ss:
  lake_dir: lake
  st_timestr: 2024-07-25_23:00
  fin_timestr: 2024-07-26
sim_ss:
  now: 2024-07-26_02:00
YAML
  # What cannot be read is a usage error, named in one line, before the lake is looked at (there is
  # none yet).
  run 2 query -f missing.sql
  one_line_error "query -f missing.sql"
  [ "$(cat err.txt)" = "predlake: query -f missing.sql: cannot read: No such file or directory" ] \
    || fail "missing file: $(cat err.txt)"
  mkdir folder.sql
  run 2 query -f folder.sql
  one_line_error "query -f folder.sql"
  grep -q "folder" err.txt || fail "a folder: $(cat err.txt)"
  run 2 query "SELECT 1" -f missing.sql
  one_line_error "SQL and -f"
  run 2 query
  one_line_error "no SQL"
  [ ! -e lake ] || fail "a refused query made a lake"

  run 0 -q update
  expected_csv="$(printf 'answer,word\n42,lake')"
  printf "SELECT 42 AS answer,\n  'lake' AS word;\n" > q.sql
  run 0 query -f q.sql --format csv
  [ "$(cat out.txt)" = "$expected_csv" ] || fail "query -f: $(cat out.txt)"
  run 0 query --file=q.sql --format csv
  [ "$(cat out.txt)" = "$expected_csv" ] || fail "query --file=: $(cat out.txt)"
  "$bin" query - --format csv < q.sql > out.txt
  [ "$(cat out.txt)" = "$expected_csv" ] || fail "query -: $(cat out.txt)"
  "$bin" query -f - --format csv < q.sql > out.txt
  [ "$(cat out.txt)" = "$expected_csv" ] || fail "query -f -: $(cat out.txt)"
  printf 'SELECT 1 AS one' | "$bin" query - --format csv > out.txt
  [ "$(cat out.txt)" = "$(printf 'one\n1')" ] || fail "query - from a pipe: $(cat out.txt)"
  : > empty.sql
  run 2 query -f empty.sql
  one_line_error "an empty file"
  printf 'SELECT 1; SELECT 2;' > two.sql
  run 2 query -f two.sql
  one_line_error "two statements"
  # The statement from a file reads the lake like one given as an argument.
  sql="SELECT count(*) FROM bronze_pdr_predictions"
  run 0 query "$sql" --format csv
  mv out.txt direct.txt
  echo "$sql" | "$bin" query - --format csv > out.txt
  cmp -s direct.txt out.txt || fail "query - differs from the argument: $(cat direct.txt out.txt)"
  [ "$(tail -1 out.txt)" -gt 0 ] || fail "no predictions built: $(cat out.txt)"
}

section_fetch_messages() {
  # A copy of the script in a tree of its own, so that it fetches into that tree.
  mkdir -p root/scripts fakebin cache
  cp "$src/scripts/fetch_duckdb.sh" root/scripts/
  lib_pkg="$(sed -n 's/^lib_pkg="\(.*\)"$/\1/p' root/scripts/fetch_duckdb.sh)"
  lib_tgz="$(sed -n 's/^lib_tgz="\(.*\)"$/\1/p' root/scripts/fetch_duckdb.sh)"
  hdr_pkg="$(sed -n 's/^hdr_pkg="\(.*\)"$/\1/p' root/scripts/fetch_duckdb.sh)"
  hdr_tgz="$(sed -n 's/^hdr_tgz="\(.*\)"$/\1/p' root/scripts/fetch_duckdb.sh)"
  old_tgz="$(sed -n 's/^old_tgz="\(.*\)"$/\1/p' root/scripts/fetch_duckdb.sh)"
  [ -n "$lib_pkg" ] && [ -n "$lib_tgz" ] && [ -n "$hdr_pkg" ] && [ -n "$hdr_tgz" ] \
    || fail "the script's package pins were not found"
  # An npm whose download is not the pinned tarball: the script says what it downloads, then refuses it.
  printf '#!/bin/sh\necho "not $3" > fake.tgz\n' > fakebin/npm
  chmod +x fakebin/npm
  rc=0
  PATH="$work/fakebin:$PATH" PREDLAKE_CACHE="$work/cache" root/scripts/fetch_duckdb.sh \
    > out.txt 2> err.txt || rc=$?
  [ "$rc" -eq 1 ] || fail "a wrong download exited $rc"
  [ "$(head -1 err.txt)" = "fetch_duckdb: downloading $lib_pkg from the npm registry (npm pack) into $work/cache, then checking its sha256" ] \
    || fail "no download message first: $(cat err.txt)"
  grep -q "^fetch_duckdb: sha256 mismatch for $lib_pkg" err.txt || fail "no mismatch: $(cat err.txt)"
  [ ! -e root/third_party ] || fail "a refused download was unpacked"
  # The pinned tarballs in the user's cache (the build fetched them): taken from there, and said so.
  user_cache="${PREDLAKE_CACHE:-$HOME/.cache/predlake}"
  if [ ! -f "$user_cache/$lib_tgz" ] || [ ! -f "$user_cache/$hdr_tgz" ] || [ ! -f "$user_cache/$old_tgz" ]; then
    skip "the pinned tarballs are not in $user_cache"
    return
  fi
  rm -f cache/*
  ln -s "$user_cache/$lib_tgz" "$user_cache/$hdr_tgz" "$user_cache/$old_tgz" cache/
  PATH="$work/fakebin:$PATH" PREDLAKE_CACHE="$work/cache" root/scripts/fetch_duckdb.sh \
    > out.txt 2> err.txt || fail "the cached fetch failed: $(cat err.txt)"
  grep -qx "fetch_duckdb: $lib_pkg from the cache, $work/cache/$lib_tgz (its sha256 checked)" err.txt \
    || fail "no cache message for the library: $(cat err.txt)"
  grep -qx "fetch_duckdb: $hdr_pkg from the cache, $work/cache/$hdr_tgz (its sha256 checked)" err.txt \
    || fail "no cache message for the header: $(cat err.txt)"
  [ -f root/third_party/duckdb/lib/libduckdb.so ] && [ -f root/third_party/duckdb/include/duckdb.h ] \
    || fail "not unpacked: $(find root | head)"
}

section_make_targets() {
  command -v make > /dev/null || { skip "make missing"; return; }
  # What the targets would run (make -n runs nothing): every build of demo and install names the
  # predlake target, and install copies it under PREFIX.
  for target in demo install; do
    make -n -C "$src" "$target" PREFIX="$work/p" BUILD_DIR=build/x > "$target.txt"
    builds="$(grep -c -- 'cmake --build' "$target.txt" || true)"
    [ "$builds" -ge 1 ] || fail "make $target builds nothing: $(cat "$target.txt")"
    [ "$(grep -- 'cmake --build' "$target.txt" | grep -vc -- '--target predlake$')" -eq 0 ] \
      || fail "make $target builds more than predlake: $(grep -- 'cmake --build' "$target.txt")"
  done
  grep -qx "cmake --install build/x --prefix $work/p" install.txt \
    || fail "make install does not install under PREFIX: $(cat install.txt)"
  grep -q '^./build/x/predlake update$' demo.txt || fail "make demo runs no update: $(cat demo.txt)"
}

run_sections
