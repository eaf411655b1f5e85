#!/usr/bin/env bash
# Checks the README's run command the way a user meets it: scripts/run.sh started twice, one
# after the other, from another working directory; each must answer /api/v1/ready with 200
# and stop cleanly. Uses the debug build (QUIRE_PROFILE=dev) to spare CI a release build.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
. "$root/scripts/lib/server.sh"
tmp=$(mktemp -d)
pid=""
cleanup() { stop_server "$pid"; rm -rf "$tmp"; }
trap cleanup EXIT
# Build first, so the wait below times the start and not a first compilation: a fresh
# checkout's debug build takes longer than that wait on 2 busy cores (run.sh's own build is
# then a no-op, as on a user's second run).
(cd "$root" && cargo build --locked -q -p quire)
for round in 1 2; do
  port=$(free_port)
  (cd / && QUIRE_PROFILE=dev HOST=127.0.0.1 PORT="$port" UPLOAD_DIR="$tmp/uploads" \
    OUTPUT_DIR="$tmp/outputs" DATA_DIR="$tmp/data" WORKERS=1 LOG_LEVEL=warn \
    exec "$root/scripts/run.sh" >"$tmp/run$round.log" 2>&1) &
  pid=$!
  code=""
  for _ in $(seq 600); do
    code=$(curl -s -o "$tmp/ready.json" -w '%{http_code}' "http://127.0.0.1:$port/api/v1/ready" || true)
    [[ "$code" == "200" ]] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.5
  done
  if [[ "$code" != "200" ]]; then
    echo "check-run: run $round of scripts/run.sh did not become ready (HTTP ${code:-none})" >&2
    tail -20 "$tmp/run$round.log" >&2
    cat "$tmp/ready.json" >&2 2>/dev/null || true
    exit 1
  fi
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  pid=""
  echo "check-run: run $round ready on port $port and stopped"
done
