#!/usr/bin/env bash
# Measures issue 14's live-progress, API-key and backpressure acceptance figures on this
# machine and prints each figure line. Each item is a test of host/tests/service:
#   - SSE, 100 subscribers on one job, embedded (server RSS)     events::measure_sse_100_on_one_job_embedded
#   - SSE, 100 subscribers on one job run by a `quire worker`     events::measure_sse_100_on_one_job_redis_across_processes
#     process, API process subscribed over Redis
#   - SSE, 500 jobs with one subscriber each (server RSS)        events::measure_sse_500_jobs_{embedded,redis}
#   - MAX_QUEUED_JOBS=50, 200 concurrent submissions              backpressure::a_full_queue_answers_429_and_loses_nothing
#   - API keys on every route (no, wrong, other tenant's, right)  keys::every_route_needs_the_right_key
# The SSE measurements are #[ignore]d (a minute or two each on 2 cores); smaller versions of
# the same checks run with the test suite. Needs Redis at 127.0.0.1:6379.
#
#   scripts/measure/serving.sh [--quick]      (--quick: skip the two 500-job runs)
set -uo pipefail
cd "$(dirname "$0")/../.."
quick=0
for a in "$@"; do
  case "$a" in
    --quick) quick=1 ;;
    *) echo "serving: unknown argument '$a'" >&2; exit 2 ;;
  esac
done
failed=0
run() {
  # $1: test path in the `service` binary; $2: --ignored for measurements.
  local out rc
  out=$(cargo test --locked -q -p quire --test service "$1" -- --exact --nocapture \
    --test-threads 1 ${2:-} 2>&1)
  rc=$?
  echo "$out" | grep -E "^(sse |backpressure |test result)" || echo "$out" | tail -20
  if (( rc )); then echo "FAILED: $1"; failed=1; fi
}
cargo build --locked -q -p quire --tests || exit 1
echo "== SSE: 100 subscribers on one job"
run events::measure_sse_100_on_one_job_embedded --ignored
run events::measure_sse_100_on_one_job_redis_across_processes --ignored
if (( ! quick )); then
  echo "== SSE: 500 jobs, one subscriber each"
  run events::measure_sse_500_jobs_embedded --ignored
  run events::measure_sse_500_jobs_redis --ignored
fi
echo "== Backpressure: MAX_QUEUED_JOBS=50, 200 submissions"
run backpressure::a_full_queue_answers_429_and_loses_nothing::embedded
run backpressure::a_full_queue_answers_429_and_loses_nothing::redis
echo "== API keys on every route"
run keys::every_route_needs_the_right_key::embedded
run keys::every_route_needs_the_right_key::redis
exit $failed
