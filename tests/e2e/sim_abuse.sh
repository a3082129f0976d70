#!/usr/bin/env bash
# `sim serve` under abuse, through the binary (docs/sim.md, "sim serve"): idle keep-alive connections
# never hold other clients up; a request body, the number of aliases and fields and the response size
# are bounded (a clear GraphQL error, the server's memory stays small); SIGINT and SIGTERM stop it
# within 2 s even with idle connections open.
set -euo pipefail
source "$(dirname "$0")/lib.sh" sim_abuse "$@"
command -v curl > /dev/null || skip_all "no curl"
printf 'sim_ss:\n  now: 2024-07-26_02:00\n' > ppss.yaml
# Under AddressSanitizer building a 32 MB answer takes a minute: that tree abandons at 2 MB (the
# abandon path is the same; the release tree checks the default bound and the memory it keeps).
limit_mb=32
if asan_binary; then
  limit_mb=2
  printf '  max_response_mb: %d\n' "$limit_mb" >> ppss.yaml
fi

start_server() {
  start_sim_serve -q
  port="${url#http://127.0.0.1:}"
  port="${port%%/*}"
}

# post BODY_FILE [SECONDS]: the answer's body in answer.txt, its status code on stdout, within
# SECONDS (default 10).
post() {
  curl -s -m "${2:-10}" -o answer.txt -w '%{http_code}' -H 'Content-Type: application/json' --data-binary "@$1" "$url"
}

# open_idle N: N connections that send nothing (each on its own descriptor, kept open).
idle_fds=()
open_idle() {
  for _ in $(seq 1 "$1"); do
    exec {fd}<>"/dev/tcp/127.0.0.1/$port"
    idle_fds+=("$fd")
  done
}
close_idle() {
  for fd in "${idle_fds[@]}"; do exec {fd}>&-; done
  idle_fds=()
}

start_server
printf '{"query":"{ _meta { block { number } } }"}' > meta.json
[ "$(post meta.json)" = 200 ] || fail "the server does not answer: $(cat answer.txt)"

# ---- 40 idle connections (five times the old pool): another client is answered at once.
open_idle 40
sleep 0.3
start_ms=$(date +%s%3N)
code="$(post meta.json)" || fail "a client behind 40 idle connections got no answer"
elapsed=$(( $(date +%s%3N) - start_ms ))
[ "$code" = 200 ] || fail "behind idle connections: $code $(cat answer.txt)"
[ "$elapsed" -lt 1000 ] || fail "behind idle connections the answer took ${elapsed} ms"
# Keep-alive connections that sent a request and went quiet, too.
for _ in $(seq 1 20); do
  exec {fd}<>"/dev/tcp/127.0.0.1/$port"
  printf 'POST /x HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s' \
    "$(wc -c < meta.json)" "$(cat meta.json)" >&"$fd"
  idle_fds+=("$fd")
done
[ "$(post meta.json)" = 200 ] || fail "behind idle keep-alive connections"

# ---- Bounds: 1000 aliases, too many fields, a body over 1 MB. Each is refused with a clear error,
# at once, and the server stays small.
{
  printf '{"query":"{'
  for i in $(seq 1 1000); do printf ' a%d: predictPredictions(first: 1000) { id stake }' "$i"; done
  printf ' }"}'
} > aliases.json
[ "$(post aliases.json)" = 200 ] || fail "1000 aliases: $(cat answer.txt)"
grep -q '"errors"' answer.txt || fail "1000 aliases were answered: $(head -c 200 answer.txt)"
grep -q 'root fields (aliases included); the limit is 32' answer.txt || fail "1000 aliases: $(cat answer.txt)"
{
  printf '{"query":"{'
  for i in $(seq 1 32); do
    printf ' a%d: predictPredictions(first: 1000) { id stake timestamp txId block user { id } payout { id payout predictedValue trueValue txId } slot { id slot status revenue roundSumStakes roundSumStakesUp trueValues { id trueValue txId } predictContract { id secondsPerEpoch token { id name symbol nft { id nftData { key value } } } } } }' "$i"
  done
  printf ' }"}'
} > wide.json
# (generating the first 32 MB takes a few seconds on a loaded machine)
[ "$(post wide.json 120)" = 200 ] || fail "a wide query: $(cat answer.txt)"
grep -q '"errors"' answer.txt || fail "a 32 x 1000-row query was answered in full ($(wc -c < answer.txt) bytes)"
grep -qE "fields; the limit is|larger than $limit_mb MB" answer.txt || fail "a wide query: $(head -c 300 answer.txt)"
head -c $((2 << 20)) /dev/zero | tr '\0' 'x' | sed 's/^/{"query":"/; s/$/"}/' > big.json
code="$(post big.json)" || true
[ "$code" = 400 ] || [ "$code" = 413 ] || fail "a 2 MB body got $code"
rss_kb=$(awk '/VmHWM/ {print $2}' "/proc/$server_pid/status")
# Under AddressSanitizer (the sanitizer tree) memory is not the product's: the bound is checked by
# the release tree.
asan_binary || [ "$rss_kb" -lt 200000 ] || fail "the server grew to ${rss_kb} kB"
[ "$(post meta.json)" = 200 ] || fail "the server stopped answering after the abuse"

# ---- SIGTERM and SIGINT stop it within 2 s, idle connections open.
for sig in TERM INT; do
  [ -n "$server_pid" ] || start_server
  open_idle 20
  start_ms=$(date +%s%3N)
  kill -"$sig" "$server_pid"
  set +e
  wait "$server_pid"
  rc=$?
  set -e
  elapsed=$(( $(date +%s%3N) - start_ms ))
  server_pid=""
  close_idle
  [ "$elapsed" -lt 2000 ] || fail "SIG$sig took ${elapsed} ms to stop the server"
  [ "$rc" -ne 0 ] || fail "SIG$sig: exit status 0"
done
echo "sim_abuse: ok"
