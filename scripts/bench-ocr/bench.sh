#!/usr/bin/env bash
# OCR and start-up peers, measured side by side in one run (issue 13).
#
#   scripts/bench-ocr/bench.sh [RUNS]        (default 3 OCR runs; start-up: 20 runs each)
#
# Pairs, interleaved run by run so machine load hits both sides alike:
#   * quire --ocr --ocr-provider provider_one on a 3-page 200-dpi scan  vs  pdftoppm -r 200 +
#     tesseract CLI on the same pages (both with OMP_THREAD_LIMIT=1, as scripts/run.sh runs quire);
#   * quire --ocr --ocr-provider provider_two on the same scan  vs  pdftoppm -r 200 + rapidocr
#     (Python, onnxruntime, the same PP-OCRv6 models, library defaults), whole processes;
#   * quire --ocr --ocr-provider provider_two on the page images `pdftoppm -r 200 -png` made of
#     the scan (one process per page)  vs  rapidocr on the same images: the recognisers on
#     identical pixels (PDFium and poppler rasterise the scan's JPEGs differently, and both
#     engines' CER moves with that: rapidocr 0.19% on poppler's pages, 1.37% on PDFium's);
#   * quire convert of a tiny text file  vs  pdftotext of a one-page PDF (hyperfine, 20 runs).
# CER of each OCR output against the known text (cer.py). Pages come from gen_scan.py.
#
# Environment: QUIRE_BIN (default ${CARGO_TARGET_DIR:-target}/release/quire), VENV (a Python
# virtualenv with rapidocr, onnxruntime and Pillow; default /work/venv-ocr), OUT (work folder,
# default /tmp/quire-ocr-bench), SKIP (space-separated: one two img start), QUIRE_BEFORE (an older
# quire binary to time beside the current one, e.g. the build before a change).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
runs="${1:-3}"
quire="${QUIRE_BIN:-${CARGO_TARGET_DIR:-$root/target}/release/quire}"
venv="${VENV:-/work/venv-ocr}"
out="${OUT:-/tmp/quire-ocr-bench}"
skip=" ${SKIP:-} "
py="$venv/bin/python"
export OMP_THREAD_LIMIT=1
mkdir -p "$out"
[ -f "$out/scan.pdf" ] || "$py" "$here/gen_scan.py" "$out" >/dev/null
cat "$out"/page-[123].txt > "$out/ref.txt"
mkdir -p "$out/pages"
[ -f "$out/pages/p-1.png" ] || pdftoppm -r 200 -png "$out/scan.pdf" "$out/pages/p"

now() { date +%s.%N; }
# time_cmd NAME OUTFILE CMD...: runs CMD with stdout to OUTFILE, appends "NAME seconds" to times.
time_cmd() {
  local name="$1" file="$2"; shift 2
  local t0 t1
  t0=$(now)
  "$@" > "$file" 2>>"$out/stderr.log"
  t1=$(now)
  echo "$name $(echo "$t1 - $t0" | bc)" >> "$out/times"
}
tess_peer() {
  local d; d=$(mktemp -d)
  pdftoppm -r 200 -gray "$out/scan.pdf" "$d/p"
  for f in "$d"/p-*.pgm; do tesseract "$f" - 2>/dev/null; done
  rm -rf "$d"
}
quire_images() {
  local bin="$1"
  for f in "$out"/pages/p-*.png; do
    # Without the embedded page image and its size line, which are not read text.
    "$bin" convert --ocr --ocr-provider provider_two "$f" | grep -v -e 'data:image' -e '^- Image size:' || true
  done
}
rapid_images() {
  "$py" "$here/rapid.py" "$out"/pages/p-*.png
}
rapid_peer() {
  local d; d=$(mktemp -d)
  pdftoppm -r 200 -png "$out/scan.pdf" "$d/p"
  "$py" "$here/rapid.py" "$d"/p-*.png
  rm -rf "$d"
}
: > "$out/times"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq "$runs"); do
  if [[ $skip != *" one "* ]]; then
    time_cmd quire-provider_one "$out/one.md" "$quire" convert --ocr --ocr-provider provider_one "$out/scan.pdf"
    [ -n "${QUIRE_BEFORE:-}" ] && time_cmd before-provider_one "$out/before-one.md" "$QUIRE_BEFORE" convert --ocr --ocr-provider provider_one "$out/scan.pdf"
    time_cmd tesseract-cli "$out/tess.txt" tess_peer
  fi
  if [[ $skip != *" two "* ]]; then
    time_cmd rapidocr "$out/rapid.txt" rapid_peer
    time_cmd quire-provider_two "$out/two.md" "$quire" convert --ocr --ocr-provider provider_two "$out/scan.pdf"
    [ -n "${QUIRE_BEFORE:-}" ] && time_cmd before-provider_two "$out/before-two.md" "$QUIRE_BEFORE" convert --ocr --ocr-provider provider_two "$out/scan.pdf"
  fi
  if [[ $skip != *" img "* ]]; then
    time_cmd quire-two-images "$out/two-img.md" quire_images "$quire"
    time_cmd rapidocr-images "$out/rapid-img.txt" rapid_images
    [ -n "${QUIRE_BEFORE:-}" ] && time_cmd before-two-images "$out/before-two-img.md" quire_images "$QUIRE_BEFORE"
  fi
done
echo "load after:  $(cut -d' ' -f1-3 /proc/loadavg)"
echo "median seconds over $runs runs (3 pages):"
sort -k1,1 -k2,2n "$out/times" | awk '
  { v[$1] = v[$1] " " $2; n[$1]++ }
  END { for (k in v) { split(substr(v[k], 2), a, " "); m = a[int((n[k] + 1) / 2)];
        if (n[k] % 2 == 0) m = (a[n[k] / 2] + a[n[k] / 2 + 1]) / 2;
        printf "  %-20s %7.2f s  (%.2f s/page; runs:%s)\n", k, m, m / 3, v[k] } }' | sort
for f in one before-one tess two before-two rapid two-img before-two-img rapid-img; do
  ext=txt; [[ $f == *one || $f == *two || $f == *two-img ]] && ext=md
  [ -s "$out/$f.$ext" ] && printf '  %-6s %s\n' "$f" "$("$py" "$here/cer.py" "$out/ref.txt" "$out/$f.$ext")"
done
if [[ $skip != *" start "* ]]; then
  printf 'tiny text file\n' > "$out/tiny.txt"
  if [ ! -f "$out/one-page.pdf" ]; then
    "$py" "$here/one_page_pdf.py" "$out/one-page.pdf"
  fi
  cmds=("$quire convert $out/tiny.txt" "pdftotext $out/one-page.pdf -")
  [ -n "${QUIRE_BEFORE:-}" ] && cmds+=("$QUIRE_BEFORE convert $out/tiny.txt")
  # Twice over, so a load change during one series shows.
  for pass in 1 2; do
    hyperfine -N --warmup 3 --runs 20 --export-json "$out/start-$pass.json" "${cmds[@]}" 2>&1 |
      grep -E "Time|Benchmark"
    "$py" - "$out/start-$pass.json" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print(f"  median {r['median'] * 1000:6.2f} ms  {r['command']}")
PY
  done
fi
