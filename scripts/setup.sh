#!/usr/bin/env bash
# Installs what quire needs on a Debian machine, only what is missing:
#   - Debian packages: Tesseract (provider_one, loaded at run time with dlopen, so no headers),
#     a C compiler (ring's build script, and the linker), Redis (tests), tools;
#   - runtime files from PyPI wheels, verified by SHA-256, into vendor-runtime/:
#       lib/libpdfium.so            from pypdfium2 (PDF engine, BSD-3/Apache-2.0)
#       models/*.onnx               from rapidocr (PP-OCR models for provider_two, Apache-2.0)
# Usage: scripts/setup.sh [--test]   (--test also installs what the test suite needs)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
RUNTIME="${QUIRE_RUNTIME_DIR:-$ROOT/vendor-runtime}"
want_test=0
[[ "${1:-}" == "--test" ]] && want_test=1

log() { printf 'setup: %s\n' "$*" >&2; }

if ! command -v cargo >/dev/null 2>&1; then
  log "cargo is missing: install a Rust toolchain (1.94 or newer, e.g. with rustup) and run again"
  exit 2
fi

# --- Debian packages -------------------------------------------------------------------------
# Nothing is built against Tesseract or Leptonica (libtesseract.so.5 is opened with dlopen) and
# no crate generates bindings, so neither their -dev packages nor clang are needed.
pkgs=(tesseract-ocr tesseract-ocr-eng gcc libc6-dev python3 python3-pip unzip ca-certificates)
# The generated-PDF regression run prints HTML with Chromium and DOCX with LibreOffice.
(( want_test )) && pkgs+=(redis-server poppler-utils fonts-dejavu-core fonts-dejavu-extra
                          fonts-liberation fonts-noto-core chromium libreoffice-writer)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if (( ${#missing[@]} )); then
  log "installing Debian packages: ${missing[*]}"
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# --- runtime files from PyPI wheels ----------------------------------------------------------
# name|pip requirement|path inside the wheel|destination|sha256 of the extracted file
files=(
  "pdfium|pypdfium2==5.15.2|pypdfium2_raw/libpdfium.so|lib/libpdfium.so|c76dc0f7839644bfa7c3e3107a6068df714e339c861bb7d4519907b821d427f9"
  "det|rapidocr==3.10.0|rapidocr/models/PP-OCRv6_det_small.onnx|models/PP-OCRv6_det_small.onnx|090f04abcd9d9a7498bc4ebf677e4cb9bdce1fe4197ddb7e529f1ef44e1ff94f"
  "rec|rapidocr==3.10.0|rapidocr/models/PP-OCRv6_rec_small.onnx|models/PP-OCRv6_rec_small.onnx|6f327246b50388f3c176ae304bd95767ea6dc0c9ae92153ef8cbe210b3c14884"
  "cls|rapidocr==3.10.0|rapidocr/models/ch_ppocr_mobile_v2.0_cls_mobile.onnx|models/ch_ppocr_mobile_v2.0_cls_mobile.onnx|e47acedf663230f8863ff1ab0e64dd2d82b838fceb5957146dab185a89d6215c"
)
tmp=""
cleanup() { if [[ -n "$tmp" ]]; then rm -rf "$tmp"; fi; }
trap cleanup EXIT
for entry in "${files[@]}"; do
  IFS='|' read -r _ req inner dest sum <<<"$entry"
  target="$RUNTIME/$dest"
  if [[ -f "$target" ]] && echo "$sum  $target" | sha256sum -c --status; then
    continue
  fi
  [[ -n "$tmp" ]] || tmp=$(mktemp -d)
  name=${req%%==*}
  if ! ls "$tmp"/wheels/"$name"-*.whl >/dev/null 2>&1; then
    log "fetching $req from PyPI"
    python3 -m pip download --quiet --no-deps --only-binary=:all: \
      --platform manylinux2014_x86_64 --python-version 3.11 -d "$tmp/wheels" "$req" >&2
  fi
  mkdir -p "$(dirname "$target")"
  unzip -o -q -j "$tmp"/wheels/"$name"-*.whl "$inner" -d "$tmp/x"
  got=$(sha256sum "$tmp/x/$(basename "$inner")" | cut -d' ' -f1)
  if [[ "$got" != "$sum" ]]; then
    log "checksum mismatch for $inner from $req: got $got, expected $sum"
    exit 3
  fi
  mv "$tmp/x/$(basename "$inner")" "$target"
  log "installed $dest"
done
cat > "$RUNTIME/NOTICE" <<'NOTICE'
Files in this folder were fetched by scripts/setup.sh from PyPI wheels:
- lib/libpdfium.so: PDFium (BSD-3-Clause / Apache-2.0), from the pypdfium2 wheel.
- models/*.onnx: PaddleOCR PP-OCR models (Apache-2.0), from the rapidocr wheel.
NOTICE
# --- test tools --------------------------------------------------------------------------------
# The object-storage tests (host/tests/storage_s3.rs) run against a real S3 server: moto in
# server mode, from PyPI (pinned; pure Python, installs in seconds).
if (( want_test )) && ! command -v moto_server >/dev/null 2>&1; then
  log "installing moto[server] from PyPI (S3 server for the object-storage tests)"
  python3 -m pip install --quiet "moto[server]==5.2.1" >&2 ||
    python3 -m pip install --quiet --break-system-packages "moto[server]==5.2.1" >&2
  command -v moto_server >/dev/null 2>&1 || { log "moto_server is not on PATH after installing moto[server]"; exit 4; }
fi
log "ready (runtime files in $RUNTIME)"
