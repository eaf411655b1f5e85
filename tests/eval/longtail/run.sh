#!/usr/bin/env bash
# Long-tail development corpus: documents from public test suites, converted and scored.
#
#   tests/eval/longtail/run.sh [--types a,b] [--sources a,b] [--bars FILE] [--json OUT]
#
# Reads bare git mirrors of the suites (QUIRE_MIRRORS, default /work/.mirror, one
# <owner>+<name>/repo per suite; gather.py lists them) into a cache (QUIRE_LONGTAIL_CACHE, default
# ~/.cache/quire/longtail; rebuilt on every run, never committed), then converts every document
# with quire to Markdown and JSON and prints figures per type and per source (see score.py).
# QUIRE names the binary (default: the release build). Python packages go into a virtual
# environment under ~/.cache/quire/longtail-venv.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
venv="${QUIRE_LONGTAIL_VENV:-$HOME/.cache/quire/longtail-venv}"
if [[ ! -x "$venv/bin/python" ]] || ! "$venv/bin/python" -c "import olefile" 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet "olefile==0.47"
fi
cache="${QUIRE_LONGTAIL_CACHE:-$HOME/.cache/quire/longtail}"
target="${CARGO_TARGET_DIR:-$root/target}"
quire="${QUIRE:-$target/release/quire}"
rm -rf "$cache"
mkdir -p "$cache"
"$venv/bin/python" "$here/gather.py" "$cache" --mirrors "${QUIRE_MIRRORS:-/work/.mirror}"
"$venv/bin/python" "$here/score.py" "$cache" --quire "$quire" "$@"
