#!/usr/bin/env bash
# Service benchmarks (figures, not pass/fail): upload RSS, create latency, end-to-end
# throughput on both stores, per-job isolation overhead (release build), and kill -9 chaos on
# Redis (debug build: it needs the slow-conversion test input, compiled into debug builds only).
#
# Needs Redis on 127.0.0.1:6379.
#   scripts/bench-service.sh                    # everything, default features
#   scripts/bench-service.sh bench_throughput   # one group
#   scripts/bench-service.sh bench_ --no-default-features --features text,markdown
# BENCH_WORKERS=N sets WORKERS for the throughput and latency servers.
set -euo pipefail
cd "$(dirname "$0")/.."
filter="${1:-bench_}"
shift || true
show() { grep -E 'BENCH|panicked|test result|error' || true; }
if [[ "bench_kill_chaos" != "$filter"* || "$filter" == "bench_" ]]; then
  cargo test --release -p quire "$@" --test service "$filter" -- --ignored --nocapture --test-threads=1 \
    --skip bench_kill_chaos 2>&1 | show
fi
if [[ "bench_kill_chaos" == "$filter"* ]]; then
  cargo test -p quire "$@" --test service bench_kill_chaos -- --ignored --nocapture 2>&1 | show
fi
