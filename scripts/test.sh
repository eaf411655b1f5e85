#!/usr/bin/env bash
# The whole test suite, as CI runs it: set-up, format, lints, every test (with a real Redis),
# every plugin subset, and the shared corpus when ../shared/corpus is present.
set -euo pipefail
# Nothing here reads the terminal. cargo lets rustc inherit stdin when it asks rustc about the
# target (`rustc - --print ...`), and rustc then compiles whatever stdin holds: a CI runner whose
# stdin carried earlier log lines failed the tests step that way. Read from /dev/null instead.
exec </dev/null
cd "$(dirname "$0")/.."
step() { printf '\n==> %s\n' "$*"; }

# cargo learns about the target by running `rustc - --print=...` on an empty probe. A rustc wrapper
# on a CI runner once answered that probe with another compilation's stderr (the tests step failed
# with "failed to run `rustc` to learn about target-specific information" before building anything).
# That failure is the runner's, and it comes before any work, so such a cargo command is run once
# more; every other failure stands. Exported, so the check scripts' cargo commands get it too.
cargo() {
  local - err rc
  set +e -o pipefail
  err=$(mktemp)
  # stdout as it is; stderr shown and kept (through fd 3, so the pipe carries stderr alone).
  { command cargo "$@" 2>&1 1>&3 3>&- | tee "$err" 1>&2 3>&-; rc=${PIPESTATUS[0]}; } 3>&1
  if ((rc != 0)) && grep -q 'to learn about target-specific information' "$err"; then
    rm -f "$err"
    printf 'cargo could not query rustc about the target; running the command once more\n' >&2
    command cargo "$@"
    return
  fi
  rm -f "$err"
  return "$rc"
}
export -f cargo

step "set-up"
scripts/setup.sh --test
# Run it again: a second set-up on a machine that already has everything must succeed too
# (the README's commands are run one after the other, and each runs set-up).
scripts/setup.sh --test

step "run.sh twice"
scripts/check-run.sh

step "redis"
if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no
  for _ in $(seq 50); do redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && break; sleep 0.1; done
fi
redis-cli -h 127.0.0.1 -p 6379 ping

step "format"
cargo fmt --all --check

step "clippy"
cargo clippy --locked --workspace --all-targets --all-features -- -D warnings

step "tests"
cargo test --locked --workspace --exclude quire-tests --no-fail-fast -- --test-threads 2

step "OpenAPI against the live server (schemathesis, >= 500 cases, no failures)"
scripts/check-openapi.sh

step "MCP with the official Python SDK, over stdio and Streamable HTTP"
scripts/check-mcp.sh

step "release archive (debug build): unpacked in a temporary folder, run from /"
scripts/check-release.sh

step "plugin subsets"
scripts/check-features.sh

step "PDF structure on generated documents (seeded sample, fixed bars)"
cargo build --locked -p quire
QUIRE="${CARGO_TARGET_DIR:-target}/debug/quire" tests/eval/pdf/run.sh --count 15 --seed 5150 --tools quire \
  --bars tests/eval/pdf/bars.json

step "generated documents, every non-PDF format (tests/eval/formats, seeded, fixed bars)"
cargo build --locked -q -p quire
QUIRE="${CARGO_TARGET_DIR:-target}/debug/quire" tests/eval/formats/run.sh --count 48 --seed 20261125 \
  --bars tests/eval/formats/bars.json

step "web page in headless Chromium (tests/browser: upload, progress, rendering, download, keyboard)"
cargo build --locked -q -p quire
QUIRE="${CARGO_TARGET_DIR:-target}/debug/quire" tests/browser/run.sh

step "corpus"
if [[ -d ../shared/corpus ]]; then
  cargo test --locked -p quire-tests --test corpus -- --nocapture --test-threads 2
  # Chunks of every corpus document: token bounds, text given back once in order, locations.
  cargo test --locked -p quire-tests --test chunks -- --nocapture --test-threads 2
else
  echo "../shared/corpus not found: corpus suite skipped"
fi
