#!/usr/bin/env bash
# Acceptance figure for cancellation: DELETE of a running, long OCR job (a generated scanned
# PDF, OCR'd page by page) -> how long until its conversion process is gone, whether any file of
# the job remains, and the job's status code afterwards.
#
#   scripts/measure-cancel-ocr.sh [path/to/quire] [ocr provider] [pages]
# Needs python3 with Pillow (text rendered into page images) and curl. Prints one line.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$(pwd)"
. "$repo/scripts/lib/server.sh"
quire="${1:-$repo/target/debug/quire}"
provider="${2:-provider_two}"
pages="${3:-20}"
work="$(mktemp -d)"
# Only the server this script started: `kill 0` would end the caller's whole process group.
trap 'stop_server "${serve:-}"; rm -rf "$work"' EXIT
cd "$work"

"${PYTHON:-python3}" - "$pages" <<'EOF'
import random, sys
from PIL import Image, ImageDraw, ImageFont
random.seed(7)
words = "the quick brown fox jumps over lazy dog conversion service document page scanned text".split()
try:
    font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 28)
except OSError:
    font = ImageFont.load_default()
pages = []
for _ in range(int(sys.argv[1])):
    img = Image.new("L", (2480, 3508), 255)
    d = ImageDraw.Draw(img)
    for y in range(80, 3400, 44):
        d.text((80, y), " ".join(random.choice(words) for _ in range(14)), fill=0, font=font)
    pages.append(img.convert("RGB"))
pages[0].save("scanned.pdf", save_all=True, append_images=pages[1:], resolution=300)
EOF

port=$(free_port)
HOST=127.0.0.1 PORT=$port WORKERS=1 CONVERSION_TIMEOUT=600 QUIRE_RUNTIME_DIR="$repo/vendor-runtime" \
  OCR_MODEL_DIR="$repo/vendor-runtime/models" LOG_LEVEL=warn "$quire" serve > serve.log 2>&1 &
serve=$!
base="http://127.0.0.1:$port/api/v1"
wait_until_up "$base/health" "$serve" serve.log 100
id=$(curl -sf -F file=@scanned.pdf -F output_format=md -F use_ocr=true -F ocr_provider="$provider" \
  "$base/jobs" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
# Let it run a while, then find its conversion process.
sleep 5
child=$(for p in /proc/[0-9]*; do
  [[ "$(awk '{print $4}' "$p/stat" 2>/dev/null)" == "$serve" ]] && grep -q convert-child "$p/cmdline" 2>/dev/null && basename "$p"
done | head -1 || true)
status=$(curl -sf "$base/jobs/$id" | python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["status"], j["progress"])')
start=$(date +%s%N)
code=$(curl -s -o /dev/null -w '%{http_code}' -X DELETE "$base/jobs/$id")
while [[ -n "$child" && -e /proc/$child ]] && ! grep -q '^State:.*Z' "/proc/$child/status" 2>/dev/null; do
  sleep 0.005
done
gone_ms=$(( ($(date +%s%N) - start) / 1000000 ))
sleep 2
left=$(ls uploads outputs 2>/dev/null | grep -c "$id" || true)
after=$(curl -s -o /dev/null -w '%{http_code}' "$base/jobs/$id")
echo "job was '$status' (of $pages pages, $provider); DELETE $code; child $child gone after ${gone_ms} ms; files of the job left: $left; GET afterwards: $after"
