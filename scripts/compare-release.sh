#!/usr/bin/env bash
# Measures that the release archive converts like the repository build: every file of
# ../shared/corpus (or DIR) is converted twice, by the repository's binary started in the
# checkout and by the archive's binary unpacked in a temporary folder and started from `/`
# with a bare environment, and the two outputs (and exit codes) are compared byte for byte.
# Each file: Markdown and JSON; images and PDFs also Markdown with OCR by provider_one
# (Tesseract) and provider_two (PP-OCR, the bundled models).
# Usage: scripts/compare-release.sh [--profile dev|release] [--archive FILE] [--jobs N] [DIR]
# Prints one line per difference and a tally; exits 1 when anything differs.
# Slow (a few minutes: every OCR run twice); CI runs scripts/check-release.sh instead.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
profile=dev
archive=""
jobs=2
corpus="$root/../shared/corpus"
while (( $# )); do
  case "$1" in
    --profile) profile="$2"; shift 2 ;;
    --archive) archive="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    *) corpus="$1"; shift ;;
  esac
done
corpus=$(cd "$corpus" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [[ -z "$archive" ]]; then
  archive=$("$root/scripts/release.sh" --profile "$profile" --out "$tmp/dist" | tail -1)
fi
mkdir -p "$tmp/unpacked"
tar -xzf "$archive" -C "$tmp/unpacked"
rel=$(echo "$tmp"/unpacked/quire-*/bin/quire)
target="${CARGO_TARGET_DIR:-$root/target}"
[[ "$target" = /* ]] || target="$root/$target"
case "$profile" in release) repo="$target/release/quire" ;; *) repo="$target/debug/quire" ;; esac
[[ -x "$repo" ]] || { echo "compare-release: $repo not built" >&2; exit 2; }

# One line per conversion: file|variant|args
list="$tmp/list"
: > "$list"
while IFS= read -r -d '' f; do
  echo "$f|md|-f md" >> "$list"
  echo "$f|json|-f json" >> "$list"
  case "${f,,}" in
    *.png|*.jpg|*.jpeg|*.gif|*.bmp|*.webp|*.tif|*.tiff|*.pdf)
      echo "$f|ocr1|-f md --ocr --ocr-provider provider_one" >> "$list"
      echo "$f|ocr2|-f md --ocr --ocr-provider provider_two" >> "$list" ;;
  esac
done < <(find "$corpus" -type f ! -name MANIFEST.tsv ! -name expectations.jsonl ! -path '*/groundtruth/*' -print0 | sort -z)

export rel repo root tmp
one() {
  local f="${1%%|*}" rest="${1#*|}"
  local variant="${rest%%|*}" args="${rest#*|}"
  local key
  key=$(printf '%s' "$f|$variant" | sha1sum | cut -c1-16)
  # shellcheck disable=SC2086
  (cd "$root" && OMP_THREAD_LIMIT=1 timeout 300 "$repo" convert $args "$f" > "$tmp/$key.repo" 2>/dev/null); local a=$?
  # shellcheck disable=SC2086
  (cd / && env -i PATH=/usr/bin:/bin HOME="$tmp" LANG=C.UTF-8 OMP_THREAD_LIMIT=1 timeout 300 "$rel" convert $args "$f" > "$tmp/$key.rel" 2>/dev/null); local b=$?
  if [[ $a == "$b" ]] && cmp -s "$tmp/$key.repo" "$tmp/$key.rel"; then
    echo "same|$a|$variant|$f"
  else
    echo "DIFF|$a/$b|$variant|$f"
  fi
  rm -f "$tmp/$key.repo" "$tmp/$key.rel"
}
export -f one
start=$(date +%s)
tr '\n' '\0' < "$list" | xargs -0 -P "$jobs" -I{} bash -c 'one "$@"' _ {} > "$tmp/results"
secs=$(( $(date +%s) - start ))
grep '^DIFF' "$tmp/results" || true
python3 - "$tmp/results" "$corpus" "$secs" <<'PY'
import collections, sys
rows = [l.rstrip("\n").split("|", 3) for l in open(sys.argv[1])]
corpus = sys.argv[2]
files = {r[3] for r in rows}
by_type = collections.Counter()
same_type = collections.Counter()
failed_type = collections.Counter()
for verdict, code, variant, f in rows:
    t = f[len(corpus) + 1:].split("/")[0]
    by_type[t] += 1
    same_type[t] += verdict == "same"
    failed_type[t] += verdict == "same" and code != "0"
failed_same = sum(1 for v, c, _, _ in rows if v == "same" and c != "0")
same = sum(1 for r in rows if r[0] == "same")
print(f"compare-release: {len(files)} files, {len(rows)} conversions: {same} identical "
      f"(of which {failed_same} failed identically, e.g. the bad/ files), {len(rows) - same} different; {sys.argv[3]} s")
print("  identical by type: " + ", ".join(
    f"{t} {same_type[t]}/{by_type[t]}" + (f" ({failed_type[t]} failed in both)" if failed_type[t] else "")
    for t in sorted(by_type)))
sys.exit(0 if same == len(rows) else 1)
PY
