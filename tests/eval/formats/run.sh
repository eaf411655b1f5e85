#!/usr/bin/env bash
# Every non-PDF format on generated documents with known structure, in Markdown and JSON.
#
#   tests/eval/formats/run.sh [--count N] [--seed S] [--mode simple|rich|mixed] [--bars FILE] [--libreoffice]
#
# Generates N documents (default 160, new content every run unless --seed is given) with
# python-docx, python-pptx, openpyxl and writers of its own (Markdown, HTML, XML, CSV, JSON);
# with --libreoffice (Debian packages libreoffice-writer, -impress, -calc) also LibreOffice's
# re-saved DOCX, RTF, PPTX and ODS copies. --mode (default mixed) chooses simple documents,
# rich ones (the long-tail features of each format, rich.py) or about half of each. Converts each with quire and prints per-type scores
# (see score.py). The Python packages go into a virtual environment under
# ~/.cache/quire/formats-venv. QUIRE names the quire binary (default: the release build).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
count=160 seed="" bars="" lo="" mode="mixed"
while (( $# )); do
  case "$1" in
    --count) count="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --bars) bars="$2"; shift 2 ;;
    --libreoffice) lo="--libreoffice"; shift ;;
    --mode) mode="$2"; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
venv="${QUIRE_FORMATS_VENV:-$HOME/.cache/quire/formats-venv}"
if [[ ! -x "$venv/bin/python" ]] || ! "$venv/bin/python" -c "import docx, pptx, openpyxl" 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet "python-docx==1.2.0" "python-pptx==1.0.2" "openpyxl==3.1.5"
fi
target="${CARGO_TARGET_DIR:-$root/target}"
quire="${QUIRE:-$target/release/quire}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$venv/bin/python" "$here/gen.py" "$work" --count "$count" ${seed:+--seed "$seed"} --mode "$mode" $lo
"$venv/bin/python" "$here/score.py" "$work" --quire "$quire" ${bars:+--bars "$bars"}
