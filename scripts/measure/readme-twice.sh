#!/usr/bin/env bash
# Acceptance figure for "the README's two commands work one after the other": scripts/run.sh,
# then scripts/test.sh, then both again, in this checkout. run.sh is started from `/` on a free
# loopback port with the release profile (as a user runs it), is stopped once /api/v1/ready
# answers 200; test.sh runs whole. Prints one line per step (status, seconds) and exits non-zero
# when a step failed. Logs are kept in the folder printed first.
#
#   scripts/measure/readme-twice.sh
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
logs=$(mktemp -d)
echo "readme-twice: logs in $logs"
. "$root/scripts/lib/server.sh"
failed=0

run_once() {
  local round=$1 port pid code start
  port=$(free_port)
  start=$(date +%s.%N)
  (cd / && HOST=127.0.0.1 PORT="$port" UPLOAD_DIR="$logs/uploads" OUTPUT_DIR="$logs/outputs" \
     DATA_DIR="$logs/data" exec "$root/scripts/run.sh" >"$logs/run$round.log" 2>&1) &
  pid=$!
  code=""
  for _ in $(seq 3600); do
    code=$(curl -s -o "$logs/ready$round.json" -w '%{http_code}' "http://127.0.0.1:$port/api/v1/ready" || true)
    [[ "$code" == "200" ]] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.5
  done
  kill "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  printf 'readme-twice: run.sh  round %s: /ready %s after %.1f s\n' "$round" "${code:-none}" \
    "$(echo "$(date +%s.%N) - $start" | bc)"
  [[ "$code" == "200" ]] || failed=1
}

test_once() {
  local round=$1 start rc
  start=$(date +%s.%N)
  "$root/scripts/test.sh" >"$logs/test$round.log" 2>&1
  rc=$?
  printf 'readme-twice: test.sh round %s: exit %s after %.0f s\n' "$round" "$rc" \
    "$(echo "$(date +%s.%N) - $start" | bc)"
  [[ $rc -eq 0 ]] || { failed=1; tail -30 "$logs/test$round.log"; }
}

run_once 1
test_once 1
run_once 2
test_once 2
exit $failed
