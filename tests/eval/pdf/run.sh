#!/usr/bin/env bash
# PDF structure evaluation on generated documents with known truth, quire beside its peers.
#
#   tests/eval/pdf/run.sh [--count N] [--seed S] [--tools quire,pymupdf4llm,pdftotext] [--bars F]
#
# Generates N PDFs (default 120, new content every run unless --seed is given) through headless
# Chromium, LibreOffice and reportlab, converts each with every tool file by file, and prints
# the scores side by side (see score.py for the measures). Needs the Debian packages chromium,
# libreoffice-writer and poppler-utils; the Python packages go into a virtual environment under
# ~/.cache/quire/eval-venv. QUIRE names the quire binary (default: the release build).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
count=120 seed="" tools="quire,pymupdf4llm,pdftotext" bars=""
while (( $# )); do
  case "$1" in
    --count) count="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --tools) tools="$2"; shift 2 ;;
    --bars) bars="$2"; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
venv="${QUIRE_EVAL_VENV:-$HOME/.cache/quire/eval-venv}"
# Checked by importing, not by the folder: a venv whose install was cut short is completed.
if [[ ! -x "$venv/bin/python" ]] ||
   ! "$venv/bin/python" -c "import docx, reportlab, pymupdf4llm, playwright" 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet "python-docx==1.2.0" "reportlab==5.1.0" "pymupdf==2.0" \
    "pymupdf4llm==2.0" "playwright==1.65.2"
fi
target="${CARGO_TARGET_DIR:-$root/target}"
quire="${QUIRE:-$target/release/quire}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$venv/bin/python" -W ignore "$here/gen.py" "$work" --count "$count" ${seed:+--seed "$seed"}
args=(--tools "$tools" --quire "$quire" --by-producer)
[[ -n "$bars" ]] && args+=(--bars "$bars")
"$venv/bin/python" -W ignore "$here/score.py" "$work" "${args[@]}"
