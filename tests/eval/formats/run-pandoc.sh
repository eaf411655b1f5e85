#!/usr/bin/env bash
# Documents written by another producer: pandoc (and LibreOffice after it), scored like run.sh.
#
#   tests/eval/formats/run-pandoc.sh [--count N] [--seed S] [--producers pd-docx,...] [--no-libreoffice]
#
# pandoc_gen.py writes N random pandoc Markdown sources (default 30; new content every run
# unless --seed is given) and has pandoc write each as DOCX, RTF, standalone HTML, DocBook 5,
# JATS and PPTX; LibreOffice (soffice on PATH) re-saves the pandoc DOCX as RTF and, through
# ODT, as DOCX. Each file is scored by score.py against its truth (see pandoc_gen.py for what
# the truth is per producer). Needs Debian's pandoc; QUIRE names the quire binary (default:
# the release build).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
command -v pandoc >/dev/null || { echo "pandoc not found (apt-get install pandoc)" >&2; exit 2; }
target="${CARGO_TARGET_DIR:-$root/target}"
quire="${QUIRE:-$target/release/quire}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 "$here/pandoc_gen.py" "$work" "$@"
python3 "$here/score.py" "$work" --quire "$quire"
