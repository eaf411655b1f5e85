#!/usr/bin/env bash
# Writes the Markdown and JSON output of every non-image corpus file, for comparing two builds
# byte for byte (a model or renderer change must not change them):
#
#   scripts/bench-memory/corpus-outputs.sh QUIRE OUT [CORPUS]
#   diff -r OUT-before OUT-after
#
# One folder per type and format under OUT (md/docx/…, json/docx/…), plus OUT/status with each
# batch's exit status (a failed file is named on standard error, in OUT/stderr.log).
set -uo pipefail
quire="$1"; out="$2"
root="$(cd "$(dirname "$0")/../.." && pwd)"
corpus="${3:-$root/../shared/corpus}"
mkdir -p "$out"
: > "$out/status"
for dir in "$corpus"/*/; do
  type="$(basename "$dir")"
  case "$type" in bad|groundtruth|bmp|gif|jpg|png|tiff|webp) continue ;; esac
  files=("$dir"*)
  [ -e "${files[0]}" ] || continue
  for fmt in md json; do
    mkdir -p "$out/$fmt/$type"
    "$quire" convert -f "$fmt" -o "$out/$fmt/$type" "${files[@]}" 2>>"$out/stderr.log"
    echo "$fmt/$type $?" >> "$out/status"
  done
done
