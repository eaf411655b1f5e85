#!/usr/bin/env bash
# Browser tests of the web page at `/` (see webui_test.py): Debian's headless Chromium driven by
# Playwright (Python), against a `quire serve` of its own on a free loopback port.
#
#   tests/browser/run.sh            # QUIRE names the binary (default: the debug build)
#
# Needs the Debian package chromium (scripts/setup.sh --test installs it); the Python packages
# live in ~/.cache/quire/eval-venv (QUIRE_EVAL_VENV), created with pinned versions when missing;
# Playwright downloads no browser. Screenshots go to QUIRE_SCREENSHOTS (default: a new
# temporary folder), printed at the end.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
. "$root/scripts/lib/server.sh"
venv="${QUIRE_EVAL_VENV:-$HOME/.cache/quire/eval-venv}"
if ! "$venv/bin/python" -c 'import playwright, docx, reportlab, PIL' 2>/dev/null; then
  [[ -x "$venv/bin/python" ]] || python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet "playwright==1.65.2" "python-docx==1.2.0" "reportlab==5.1.0" \
    "pillow==13.0.0"
fi
chromium="${CHROMIUM:-/usr/bin/chromium}"
[[ -x "$chromium" ]] || { echo "browser tests: $chromium not found (scripts/setup.sh --test)" >&2; exit 1; }
quire="${QUIRE:-${CARGO_TARGET_DIR:-$root/target}/debug/quire}"
[[ -x "$quire" ]] || { echo "browser tests: no quire binary at $quire (cargo build -p quire)" >&2; exit 1; }
tmp="$(mktemp -d)"
shots="${QUIRE_SCREENSHOTS:-$(mktemp -d -t quire-webui-screenshots.XXXXXX)}"
pid=""
cleanup() { stop_server "$pid"; rm -rf "$tmp"; }
trap cleanup EXIT
port="$(free_port)"
(cd / && OMP_THREAD_LIMIT=1 HOST=127.0.0.1 PORT="$port" UPLOAD_DIR="$tmp/uploads" \
  OUTPUT_DIR="$tmp/outputs" DATA_DIR="$tmp/data" WORKERS=2 LOG_LEVEL=warn \
  exec "$quire" serve >"$tmp/server.log" 2>&1) &
pid=$!
wait_until_up "http://127.0.0.1:$port/api/v1/health" "$pid" "$tmp/server.log" 300
"$venv/bin/python" -W ignore "$here/webui_test.py" --base "http://127.0.0.1:$port" \
  --chromium "$chromium" --out "$shots" --work "$tmp/inputs"
