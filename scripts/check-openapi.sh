#!/usr/bin/env bash
# Schemathesis against the live server: `quire serve` (debug build, embedded store in a
# temporary folder, 127.0.0.1) is tested against its own /api/v1/openapi.json with every
# check (status codes, content types, headers and bodies conforming to the document, no 5xx,
# invalid input refused, valid input accepted, deleted jobs gone). Fails on any failure or
# when fewer than MIN_CASES test cases were generated.
# Schemathesis is installed (pinned) into a virtualenv under ~/.cache/quire on first use.
# provider_three gets a key and an unreachable endpoint, so a form choosing it is valid (its
# OCR then fails the job, not the request). Settings: scripts/schemathesis.toml.
# Known false positive of schemathesis 4.32.5, met with seeds 1 and 3 (not 2, 20261125):
# "ST201 ... violates `required`, `additionalProperties` (was file, output_format)" on
# POST /api/v1/jobs, while the body it sent holds exactly file, output_format and valid
# optional fields (its mutation does not survive the multipart encoding). That one check is
# off for that one operation (scripts/schemathesis.toml); the service tests cover strict forms.
# Usage: scripts/check-openapi.sh [--max-examples N] [--min-cases N] [--seed N]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
. "$root/scripts/lib/server.sh"
max_examples=100
min_cases=500
seed=20261125
while (( $# )); do
  case "$1" in
    --max-examples) max_examples="$2"; shift 2 ;;
    --min-cases) min_cases="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    *) echo "check-openapi: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
venv="${QUIRE_CACHE_DIR:-$HOME/.cache/quire}/venv-schemathesis"
version=4.32.5
if ! "$venv/bin/schemathesis" --version 2>/dev/null | grep -q "$version"; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q "schemathesis==$version"
fi

cd "$root"
cargo build --locked -q -p quire
target="${CARGO_TARGET_DIR:-$root/target}"
[[ "$target" = /* ]] || target="$root/$target"
tmp=$(mktemp -d)
pid=""
cleanup() { stop_server "$pid"; rm -rf "$tmp"; }
trap cleanup EXIT
port=$(free_port)
(cd / && HOST=127.0.0.1 PORT="$port" UPLOAD_DIR="$tmp/uploads" OUTPUT_DIR="$tmp/outputs" \
  DATA_DIR="$tmp/data" WORKERS=1 LOG_LEVEL=warn MAX_FILE_SIZE=1048576 OMP_THREAD_LIMIT=1 \
  WEBHOOK_MAX_RETRIES=0 WEBHOOK_TIMEOUT=2 CONVERSION_TIMEOUT=20 \
  OCR_PROVIDER_THREE_API_KEY=not-a-key OCR_PROVIDER_THREE_BASE_URL=http://127.0.0.1:9/v1 \
  exec "$target/debug/quire" serve > "$tmp/serve.log" 2>&1) &
pid=$!
wait_until_up "http://127.0.0.1:$port/api/v1/health" "$pid" "$tmp/serve.log"

# Schemathesis keeps a cache folder in its working directory: the temporary one, not the checkout.
cd "$tmp"
report="$tmp/junit.xml"
set +e
"$venv/bin/schemathesis" --config-file "$root/scripts/schemathesis.toml" run "http://127.0.0.1:$port/api/v1/openapi.json" \
  --url "http://127.0.0.1:$port" \
  --checks all \
  --max-examples "$max_examples" \
  --seed "$seed" \
  --workers 2 \
  --max-failures 20 \
  --request-timeout 30 \
  --no-color \
  --report junit --report-junit-path "$report" \
  > "$tmp/st.log" 2>&1
rc=$?
set -e
cat "$tmp/st.log"
cases=$(grep -oE '[0-9]+ generated' "$tmp/st.log" | tail -1 | grep -oE '[0-9]+' || echo 0)
echo "check-openapi: schemathesis exit $rc, $cases test cases generated"
if (( rc != 0 )); then
  echo "check-openapi: FAIL (server log tail:)" >&2
  tail -20 "$tmp/serve.log" >&2
  exit 1
fi
if (( cases < min_cases )); then
  echo "check-openapi: FAIL: only $cases test cases (want at least $min_cases)" >&2
  exit 1
fi
echo "check-openapi: ok"
