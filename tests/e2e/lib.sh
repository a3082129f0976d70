# The shared part of the end-to-end scripts. A script begins with
#
#   set -euo pipefail
#   sections="a b"                          # optional: its sections, run by run_sections
#   needs_setup="b"                         # optional: the sections that use what `setup` builds
#   source "$(dirname "$0")/lib.sh" NAME "$@"
#
# CTest registers one entry per section, reading the `sections="..."` line of each script
# (tests/CMakeLists.txt): that line is the one list of a script's sections. After the source line:
#   bin         the binary under test ($1), as an absolute path
#   section     the section asked for ($2), "all" without one
#   src         the source tree (PREDLAKE_SOURCE_DIR, else the tree holding the script)
#   fixtures    pdr-backend's reference lake fixtures (PREDLAKE_REFERENCE_DIR, else
#               ../shared/reference/pdr-backend-lake-fixtures beside the source tree)
#   holder_bin  the lake holder executable (PREDLAKE_TEST_HOLDER, else the build's tests/ folder)
#   chromium    the headless browser (PREDLAKE_CHROMIUM, else Debian's /usr/bin/chromium)
#   expected    tests/e2e/expected/NAME, the expected outputs `check` compares with (a script may
#               point it elsewhere)
#   work        a new temporary folder, made the current directory and removed at exit, after the
#               script's own `on_exit` (define it to stop other background processes) and after
#               stopping the holder (start_holder) and the server in $server_pid (start_sim_serve)
#   shared      where a script's `setup` section leaves what the sections of its needs_setup line
#               share (a lake built once, its fingerprint): PREDLAKE_E2E_SHARED, a folder of the
#               build tree that CTest fills by running the setup section as a fixture those
#               sections require (tests/CMakeLists.txt); else a folder in $work, so that a section
#               run alone runs the setup itself
e2e_name="$1"
shift
bin="$(cd "$(dirname "$1")" 2> /dev/null && pwd)/$(basename "$1")"
[ -x "$bin" ] || { echo "FAIL: $e2e_name: no executable binary at '$1'" >&2; exit 1; }
section="${2:-all}"
src="${PREDLAKE_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
fixtures="${PREDLAKE_REFERENCE_DIR:-$src/../shared/reference/pdr-backend-lake-fixtures}"
holder_bin="${PREDLAKE_TEST_HOLDER:-$(dirname "$bin")/tests/predlake_test_holder}"
expected="$src/tests/e2e/expected/$e2e_name"
chromium="${PREDLAKE_CHROMIUM:-/usr/bin/chromium}"
sections="${sections:-}"
current=""
if [ -n "$sections" ]; then
  case " all $sections " in
    *" $section "*) ;;
    *) echo "usage: $e2e_name.sh PREDLAKE_BINARY [all|${sections// /|}]" >&2; exit 2 ;;
  esac
fi
work="$(mktemp -d)"
shared="${PREDLAKE_E2E_SHARED:-$work/shared}"
mkdir -p "$shared"
holder_pid=""
holder_lake=""
server_pid=""
on_exit() { :; }
e2e_exit() {
  on_exit || true
  if [ -n "$holder_pid" ] && kill -0 "$holder_pid" 2> /dev/null; then
    touch "$holder_lake/holder.stop"
    wait "$holder_pid" 2> /dev/null || true
  fi
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2> /dev/null; then
    kill -KILL "$server_pid" 2> /dev/null || true
    wait "$server_pid" 2> /dev/null || true
  fi
  chmod -R u+rwx "$work" 2> /dev/null || true
  rm -rf "$work"
}
trap e2e_exit EXIT
cd "$work"

fail() { echo "FAIL: $*" >&2; exit 1; }

# nap SECONDS: waits without starting a process (a builtin read that times out on a pipe nobody
# writes), for the polling loops: a `sleep` per turn is a fork and an exec, which on a loaded
# machine made a reader loop's polling cost more CPU than the reads.
exec {nap_fd}<> <(:)
nap() { read -r -t "$1" -u "$nap_fd" _ || true; }

# skip REASON: a prerequisite is missing. Alone (one section, or a script without sections) the
# script ends with 77, which CTest reports as skipped; in a run of all sections the others go on
# and the run ends with 77. The caller returns from its section right after.
e2e_skipped=""
skip() {
  echo "$e2e_name: ${current:+$current }skipped: $*"
  if [ -z "$sections" ] || [ "$section" != all ]; then exit 77; fi
  e2e_skipped=1
}

# skip_all REASON: a prerequisite of every section is missing: exit 77 (skipped).
skip_all() {
  echo "$e2e_name: skipped: $*"
  exit 77
}

# need_fixtures: skips (as above) unless the reference fixtures are there; returns 1 then.
need_fixtures() {
  [ -f "$fixtures/pdr_predictions.csv" ] && return 0
  skip "reference fixtures not found in $fixtures (set PREDLAKE_REFERENCE_DIR)"
  return 1
}

# Whether the binary is the sanitizer tree's (it runs several times slower).
asan_binary() { [[ "$(ldd "$bin" 2> /dev/null)" == *libasan* ]]; }

# run EXPECTED_RC ARGS...: the binary with stdout in out.txt and stderr in err.txt.
run() {
  local want="$1"
  shift
  local rc=0
  "$bin" "$@" > out.txt 2> err.txt || rc=$?
  [ "$rc" -eq "$want" ] || { cat err.txt >&2; fail "'$*' exited $rc, expected $want"; }
}

# one_line_error WHAT: the last run wrote one error line on stderr and nothing on stdout.
one_line_error() {
  [ ! -s out.txt ] || fail "$1: wrote to stdout"
  [ "$(wc -l < err.txt)" -eq 1 ] || { cat err.txt >&2; fail "$1: error is not one line"; }
}

# check NAME [FILE]: FILE (default out.txt) equals $expected/NAME; with UPDATE_EXPECTED=1 it is
# written there instead.
check() {
  local file="${2:-out.txt}"
  if [ "${UPDATE_EXPECTED:-}" = 1 ]; then
    cp "$file" "$expected/$1"
  elif ! diff -u "$expected/$1" "$file"; then
    fail "$1 differs from ${expected#"$src/"}/$1"
  fi
}

# start_holder LAKE_DIR HOLD_MS: predlake_test_holder holds the lake as a second process, its writer,
# for HOLD_MS or until stop_holder (output in holder.out); returns once it holds it.
start_holder() {
  [ -x "$holder_bin" ] || fail "missing $holder_bin (build predlake_test_holder)"
  holder_lake="$1"
  "$holder_bin" "$1" "$2" > holder.out 2>&1 &
  holder_pid=$!
  for _ in $(seq 1 1200); do
    [ -e "$1/holder.ready" ] && return 0
    nap 0.05
  done
  fail "the holder did not get the lake: $(cat holder.out)"
}

# stop_holder: the holder lets go; fails when it failed.
stop_holder() {
  touch "$holder_lake/holder.stop"
  wait "$holder_pid" || fail "the holder failed: $(cat holder.out)"
  holder_pid=""
  rm -f "$holder_lake/holder.stop"
}

# start_sim_serve [OPTION...]: `predlake OPTION... sim serve --port 0` in the background (output in
# serve.out and serve.err); returns with server_pid and url set once it printed its URL (within a
# minute: a sanitized build on a loaded machine starts slowly).
start_sim_serve() {
  "$bin" "$@" sim serve --port 0 > serve.out 2> serve.err &
  server_pid=$!
  for _ in $(seq 1 1200); do
    [ -s serve.out ] && break
    kill -0 "$server_pid" 2> /dev/null || break
    nap 0.05
  done
  url="$(head -1 serve.out 2> /dev/null || true)"
  case "$url" in
    http://127.0.0.1:*) ;;
    *) fail "sim serve printed no URL: '$url' $(cat serve.err)" ;;
  esac
}

# need_browser BROWSER_DIR: chromium, node and the browser test's node_modules (npm ci is tried
# first), else skip_all.
need_browser() {
  command -v node > /dev/null || skip_all "node is missing"
  [ -x "$chromium" ] || skip_all "no chromium at $chromium (scripts/install_deps.sh installs Debian's)"
  if [ ! -d "$1/node_modules/playwright-core" ] && command -v npm > /dev/null; then
    (cd "$1" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --silent) \
      > /dev/null 2>&1 || true
  fi
  [ -d "$1/node_modules/playwright-core" ] \
    || skip_all "tests/browser/node_modules is missing (cd tests/browser && npm ci)"
}

# run_sections: section_<name> for each of $sections (or only the one asked for), each between
# the script's before_section and after_section hooks when it defines them; then the final line.
run_sections() {
  for current in $sections; do
    [ "$section" = all ] || [ "$section" = "$current" ] || continue
    if declare -F before_section > /dev/null; then before_section; fi
    "section_$current"
    if declare -F after_section > /dev/null; then after_section; fi
  done
  current=""
  [ -z "$e2e_skipped" ] || exit 77
  echo "$e2e_name ($section): ok"
}
