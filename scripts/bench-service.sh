#!/usr/bin/env bash
# Service benchmarks (figures, not pass/fail): upload RSS, create latency, end-to-end
# throughput on both stores, kill -9 chaos on Redis, per-job isolation overhead.
#
# Needs Redis on 127.0.0.1:6379. Usage: scripts/bench-service.sh [filter] [cargo feature args]
#   scripts/bench-service.sh                    # all benchmarks, default features
#   scripts/bench-service.sh bench_throughput   # one group
# Extra cargo arguments after the filter, e.g. --no-default-features --features text,markdown
set -euo pipefail
cd "$(dirname "$0")/.."
filter="${1:-bench_}"
shift || true
cargo test --release -p quire "$@" --test service "$filter" -- --ignored --nocapture --test-threads=1 2>&1 \
  | grep -E '^BENCH|^test |panicked|error' || true
