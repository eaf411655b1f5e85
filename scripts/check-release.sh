#!/usr/bin/env bash
# Checks the release archive the way an operator meets it: built by scripts/release.sh,
# unpacked in a temporary folder and run from `/` with a bare environment (no QUIRE_*, no
# checkout, no cargo). It must:
#   - find its runtime files beside itself (lib/quire) and report every converter ready;
#   - need no shared library outside the Debian packages the README names;
#   - convert a PDF, and an image with OCR (provider_one, Tesseract, and provider_two, PP-OCR
#     with the bundled models), with `quire convert`;
#   - serve with the sample config: /api/v1/ready is 200 and a PDF job completes;
#   - with lib/quire/lib/libpdfium.so removed, answer /api/v1/ready with 503 and a problem
#     naming libpdfium.so and saying to unpack the archive again (not scripts/setup.sh).
# Usage: scripts/check-release.sh [--profile dev|release] [--archive FILE]
#   (default: package the debug build, as CI does, in about 40 s; --archive checks an archive
#   already built).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
. "$root/scripts/lib/server.sh"
profile=dev
archive=""
while (( $# )); do
  case "$1" in
    --profile) profile="$2"; shift 2 ;;
    --archive) archive="$2"; shift 2 ;;
    *) echo "check-release: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
tmp=$(mktemp -d)
pid=""
cleanup() { stop_server "$pid"; rm -rf "$tmp"; }
trap cleanup EXIT
fail() { echo "check-release: FAIL: $*" >&2; exit 1; }
t0=$(date +%s.%N)
ok() { echo "check-release: ok ($(awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN {printf "%.1f", a - b}') s): $*"; }

if [[ -z "$archive" ]]; then
  archive=$("$root/scripts/release.sh" --profile "$profile" --out "$tmp/dist" | tail -1)
  ok "archive built"
fi
mkdir -p "$tmp/unpacked"
tar -xzf "$archive" -C "$tmp/unpacked"
dir=$(echo "$tmp"/unpacked/quire-*)
[[ -x "$dir/bin/quire" ]] || fail "no bin/quire in $archive"
for f in lib/quire/lib/libpdfium.so etc/quire/config.toml lib/systemd/system/quire.service \
         share/doc/quire/NOTICE share/doc/quire/LICENSE-MIT share/doc/quire/LICENSE-APACHE \
         share/doc/quire/THIRD-PARTY-CRATES share/doc/quire/README.md; do
  [[ -s "$dir/$f" ]] || fail "$f missing from the archive"
done
ls "$dir"/lib/quire/models/*.onnx >/dev/null 2>&1 || fail "no OCR models in the archive"
ok "layout of $(basename "$archive")"

# A bare environment: what a systemd unit or a fresh login gives, nothing from this checkout.
bare() { (cd / && exec env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$tmp" LANG=C.UTF-8 OMP_THREAD_LIMIT=1 "$@"); }
q="$dir/bin/quire"

# Shared libraries: all found, each from a Debian package.
if ldd "$q" "$dir/lib/quire/lib/libpdfium.so" | grep -q 'not found'; then
  ldd "$q" "$dir/lib/quire/lib/libpdfium.so" | grep 'not found' >&2
  fail "a shared library is missing"
fi
if awk -F'\t' '$2 == "?"' "$dir/share/doc/quire/DEPENDS" | grep -q .; then
  fail "libraries from outside Debian packages: $(awk -F'\t' '$2 == "?" {print $1}' "$dir/share/doc/quire/DEPENDS" | tr '\n' ' ')"
fi
# ...and each package comes with tesseract-ocr (the README's package) or is part of any Debian.
allowed=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
            --no-replaces --no-enhances tesseract-ocr 2>/dev/null | grep -v '^ ' | sed 's/:.*//' | sort -u)
if [[ -z "$allowed" ]]; then
  # No package lists (apt-get update never ran here): the origin check needs them.
  ok "shared libraries: all found, each from a Debian package (no apt lists: dependency check skipped)"
else
  while IFS=$'\t' read -r lib pkg; do
    pkg=${pkg%%:*}
    if ! grep -qx "$pkg" <<<"$allowed" && [[ $(dpkg-query -W -f='${Priority}' "$pkg" 2>/dev/null) != required ]]; then
      fail "$lib comes from $pkg, which tesseract-ocr does not pull in"
    fi
  done < "$dir/share/doc/quire/DEPENDS"
  ok "shared libraries: $(wc -l < "$dir/share/doc/quire/DEPENDS") from Debian packages tesseract-ocr pulls in"
fi

plugins=$(bare "$q" plugins --json)
python3 - "$dir" "$plugins" <<'PY' || fail "quire plugins from / does not use the archive's runtime files"
import json, os, sys
d, v = sys.argv[1], json.loads(sys.argv[2])
want = os.path.realpath(os.path.join(d, "lib/quire"))
assert os.path.realpath(v["runtime_dir"]) == want, (v["runtime_dir"], want)
down = [c["id"] for c in v["converters"] if not c["ready"]]
assert not down, f"converters not ready: {down}"
ocr = {p["id"]: p["ready"] for p in v["ocr_providers"]}
assert ocr.get("provider_one") and ocr.get("provider_two"), ocr
PY
ok "runtime files found beside the binary; every converter ready"

# A one-page PDF and a 150 dpi rendering of it as the OCR image.
content='BT /F1 28 Tf 72 700 Td (Relocated release works) Tj ET'
printf '%%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >> endobj\n4 0 obj << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> endobj\n5 0 obj << /Length %d >> stream\n%s\nendstream endobj\ntrailer << /Root 1 0 R >>\n%%%%EOF\n' \
  "${#content}" "$content" > "$tmp/sample.pdf"
pdftoppm -png -r 150 -singlefile -f 1 -l 1 "$tmp/sample.pdf" "$tmp/scan" 2>/dev/null
bare "$q" convert "$tmp/sample.pdf" > "$tmp/pdf.md" || fail "quire convert sample.pdf"
grep -q 'Relocated release works' "$tmp/pdf.md" || fail "PDF text missing: $(cat "$tmp/pdf.md")"
ok "PDF converted from /"
for provider in provider_one provider_two; do
  bare "$q" convert --ocr --ocr-provider "$provider" "$tmp/scan.png" > "$tmp/ocr-$provider.md" \
    || fail "quire convert --ocr --ocr-provider $provider scan.png"
  grep -qi 'release works' "$tmp/ocr-$provider.md" || fail "OCR ($provider) text missing: $(cat "$tmp/ocr-$provider.md")"
  ok "image read with OCR $provider from /"
done

# Starts `quire serve` from / on a free port with the sample config; sets pid and port.
serve() {
  port=$(free_port)
  # Not through `bare`: a function run in the background is a subshell, and $! must be quire.
  (cd / && exec env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$tmp" LANG=C.UTF-8 OMP_THREAD_LIMIT=1 \
    QUIRE_CONFIG="$dir/etc/quire/config.toml" HOST=127.0.0.1 PORT="$port" \
    UPLOAD_DIR="$tmp/state/uploads" OUTPUT_DIR="$tmp/state/outputs" DATA_DIR="$tmp/state/data" \
    WORKERS=1 LOG_LEVEL=warn "$q" serve > "$tmp/serve.log" 2>&1) &
  pid=$!
  wait_until_up "http://127.0.0.1:$port/api/v1/health" "$pid" "$tmp/serve.log" || fail "quire serve did not start"
}
stop() { stop_server "$pid"; pid=""; }

serve
code=$(curl -s -o "$tmp/ready.json" -w '%{http_code}' "http://127.0.0.1:$port/api/v1/ready")
[[ "$code" == 200 ]] || fail "/api/v1/ready answered $code: $(cat "$tmp/ready.json")"
id=$(curl -s -F file=@"$tmp/sample.pdf" -F output_format=md "http://127.0.0.1:$port/api/v1/jobs" \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
status=""
for _ in $(seq 300); do
  status=$(curl -s "http://127.0.0.1:$port/api/v1/jobs/$id" | python3 -c 'import json,sys; print(json.load(sys.stdin)["status"])')
  [[ "$status" == completed || "$status" == failed ]] && break
  sleep 0.1
done
[[ "$status" == completed ]] || fail "PDF job ended $status"
curl -s "http://127.0.0.1:$port/api/v1/jobs/$id/result" | grep -q 'Relocated release works' \
  || fail "the job's result lacks the PDF's text"
stop
ok "quire serve with the sample config: ready, PDF job completed"

rm "$dir/lib/quire/lib/libpdfium.so"
serve
code=$(curl -s -o "$tmp/ready.json" -w '%{http_code}' "http://127.0.0.1:$port/api/v1/ready")
stop
[[ "$code" == 503 ]] || fail "/api/v1/ready answered $code without libpdfium.so: $(cat "$tmp/ready.json")"
python3 - "$tmp/ready.json" <<'PY' || fail "/api/v1/ready's problems do not name libpdfium.so: $(cat "$tmp/ready.json")"
import json, sys
v = json.load(open(sys.argv[1]))
assert any("libpdfium.so" in p for p in v["problems"]), v["problems"]
# The archive has no scripts/setup.sh: the hint must fit an archive install.
assert not any("setup.sh" in p for p in v["problems"]), v["problems"]
assert any("release archive" in p for p in v["problems"]), v["problems"]
print("check-release: ready says:", next(p for p in v["problems"] if "libpdfium.so" in p))
PY
ok "without libpdfium.so /api/v1/ready is 503 with the reason"
echo "check-release: all checks passed"
