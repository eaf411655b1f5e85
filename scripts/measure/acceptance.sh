#!/usr/bin/env bash
# Re-measures the operability acceptance figures (issue 12) on this machine and prints each
# figure line. Each item is measured by an existing test or script; this runs them one after
# the other with their output shown:
#   - Redis kill -9 and restart under load     host/tests/service/outage.rs
#   - embedded kill -9 under load (resume)      host/tests/service/recovery.rs
#   - DELETE of a running job (child gone)      host/tests/service/recovery.rs (in process, on Redis)
#   - DELETE of a running long OCR job          scripts/measure-cancel-ocr.sh (release binary)
#   - slowloris (header, trickle, idle, limit)  host/tests/service/slow_clients.rs
#   - zip and flate bombs (child peak RSS)      host/tests/service/bombs.rs
#   - schemathesis (>= 500 cases, 0 failures)   scripts/check-openapi.sh
# The release archive is measured by scripts/check-release.sh and scripts/compare-release.sh,
# the README's commands by scripts/measure/readme-twice.sh.
#
#   scripts/measure/acceptance.sh [--skip-openapi] [--skip-ocr]
# Needs a Redis server binary (the outage test starts its own on a free port) and python3 with
# Pillow for the OCR document. Exits non-zero when any item failed.
set -uo pipefail
cd "$(dirname "$0")/../.."
skip_openapi=0
skip_ocr=0
for a in "$@"; do
  case "$a" in
    --skip-openapi) skip_openapi=1 ;;
    --skip-ocr) skip_ocr=1 ;;
    *) echo "acceptance: unknown argument '$a'" >&2; exit 2 ;;
  esac
done
target="${CARGO_TARGET_DIR:-target}"
failed=0
item() { printf '\n== %s\n' "$*"; }

service_test() {
  # $1: test path inside the `service` test binary; the figure lines are the test's stderr.
  local out rc
  out=$(cargo test --locked -q -p quire --test service "$1" -- --exact --nocapture \
    --test-threads 1 2>&1)
  rc=$?
  echo "$out" | grep -E "^(redis outage|embedded restart|DELETE|slowloris|connection limit|bomb|child|test result)" \
    || echo "$out" | tail -20
  if (( rc )); then echo "FAILED: $1"; failed=1; fi
}

cargo build --locked -q -p quire --tests || exit 1
# Pillow for the generated scan: the eval virtualenv when there is one.
if [[ -z "${PYTHON:-}" && -x "$HOME/.cache/quire/eval-venv/bin/python" ]]; then
  export PYTHON="$HOME/.cache/quire/eval-venv/bin/python"
fi

item "Redis kill -9 and restart under load (answers < 2 s, back < 5 s, no job lost)"
service_test outage::redis_kill_and_restart_under_load_loses_nothing
item "Embedded store: kill -9 under load, interrupted work resumed (< 2 s)"
service_test recovery::restart_on_the_embedded_store_resumes_interrupted_work_at_once
item "DELETE of a running job: child gone (< 1 s), no file, 404"
service_test recovery::delete_of_a_running_job_cancels_it_in_process
service_test recovery::delete_of_a_running_job_cancels_it_across_processes_on_redis
item "Slowloris: idle and trickling connections closed after the configured timeouts"
service_test slow_clients::slow_and_idle_clients_are_closed_after_the_configured_timeouts
service_test slow_clients::the_connection_limit_holds_further_clients_back
item "Zip and flate bombs: child peak RSS < 2x the decompressed-size limit"
service_test bombs::bombs_are_refused_at_the_decompressed_size_limit
service_test bombs::a_child_that_grew_past_the_threshold_is_replaced
if (( ! skip_ocr )); then
  item "DELETE of a running long OCR job (release binary, provider_two, 20 scanned pages)"
  cargo build --release --locked -q -p quire || exit 1
  scripts/measure-cancel-ocr.sh "$target/release/quire" provider_two 20 || failed=1
fi
if (( ! skip_openapi )); then
  item "Schemathesis against the live server (>= 500 cases, 0 failures)"
  scripts/check-openapi.sh 2>&1 | tail -8 || failed=1
fi
exit $failed
