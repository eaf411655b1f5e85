#!/usr/bin/env bash
# Builds the relocatable release archive: one folder, unpacked anywhere, that runs from any
# working directory on a Debian machine with only the packages the README names installed
# (Tesseract and its English data; everything else is inside):
#
#   quire-<version>-<arch>-linux/
#     bin/quire                          the binary (finds lib/quire beside itself)
#     lib/quire/lib/libpdfium.so         PDFium, the PDF engine
#     lib/quire/models/*.onnx            PP-OCR models (provider_two)
#     etc/quire/config.toml              sample configuration (every setting, defaults)
#     lib/systemd/system/quire.service   systemd unit (expects the folder at /opt/quire)
#     share/doc/quire/                   README, NOTICE, licences, third-party crate list, INSTALL
#
# Usage: scripts/release.sh [--profile release|dev] [--out DIR]
#   --profile dev packages the debug build (the test suite's, no release build needed);
#   --out DIR     where the .tar.gz goes (default: dist/). Prints the archive's path last.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
profile=release
out="$ROOT/dist"
while (( $# )); do
  case "$1" in
    --profile) profile="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) echo "release: unknown argument '$1' (usage: scripts/release.sh [--profile release|dev] [--out DIR])" >&2; exit 2 ;;
  esac
done
log() { printf 'release: %s\n' "$*" >&2; }

scripts/setup.sh
case "$profile" in
  release) cargo build --release --locked -q -p quire; bin_dir=release ;;
  dev) cargo build --locked -q -p quire; bin_dir=debug ;;
  *) log "--profile must be release or dev, not '$profile'"; exit 2 ;;
esac
target="${CARGO_TARGET_DIR:-$ROOT/target}"
[[ "$target" = /* ]] || target="$ROOT/$target"
exe="$target/$bin_dir/quire"
version=$("$exe" --version | awk '{print $2}')
arch=$(uname -m)
name="quire-$version-$arch-linux"
runtime="${QUIRE_RUNTIME_DIR:-$ROOT/vendor-runtime}"

mkdir -p "$out"
out=$(cd "$out" && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
dir="$stage/$name"
mkdir -p "$dir/bin" "$dir/lib/quire/lib" "$dir/lib/quire/models" "$dir/etc/quire" \
  "$dir/lib/systemd/system" "$dir/share/doc/quire"

# The binary, without its debug sections (they are half its size and only serve a debugger).
cp "$exe" "$dir/bin/quire"
strip --strip-debug "$dir/bin/quire" 2>/dev/null || true
cp "$runtime/lib/libpdfium.so" "$dir/lib/quire/lib/"
cp "$runtime"/models/*.onnx "$dir/lib/quire/models/"
cp config.toml "$dir/etc/quire/config.toml"
cp README.md "$dir/share/doc/quire/"

cat > "$dir/lib/systemd/system/quire.service" <<'UNIT'
[Unit]
Description=quire document conversion service
Documentation=file:///opt/quire/share/doc/quire/README.md
After=network-online.target
Wants=network-online.target

[Service]
Type=simple
# Unpack the archive and link it: ln -s /opt/quire-<version>-<arch>-linux /opt/quire
ExecStart=/opt/quire/bin/quire serve
Environment=QUIRE_CONFIG=/etc/quire/config.toml
# One OpenMP thread per Tesseract engine (read by libgomp before main).
Environment=OMP_THREAD_LIMIT=1
# Uploads, outputs and the embedded store (./uploads, ./outputs, ./data) live here.
DynamicUser=yes
StateDirectory=quire
WorkingDirectory=/var/lib/quire
# SIGTERM drains the workers for shutdown_grace_seconds (30 by default).
KillSignal=SIGTERM
TimeoutStopSec=60
Restart=on-failure
RestartSec=2
LimitNOFILE=65536
NoNewPrivileges=yes
ProtectSystem=strict
ProtectHome=yes
PrivateTmp=yes

[Install]
WantedBy=multi-user.target
UNIT

cat > "$dir/share/doc/quire/INSTALL" <<INSTALL
quire $version ($arch Linux)

Needs Debian 12 or newer with: apt-get install tesseract-ocr tesseract-ocr-eng
(Tesseract for OCR provider_one; every other runtime file is in this folder).

Try it from anywhere:
  bin/quire plugins                       # converters and OCR providers, with readiness
  bin/quire convert report.pdf            # Markdown on stdout
  bin/quire convert --ocr scan.png -f json

As a service (systemd):
  sudo tar -xzf $name.tar.gz -C /opt
  sudo ln -sfn /opt/$name /opt/quire
  sudo install -D -m 644 /opt/quire/etc/quire/config.toml /etc/quire/config.toml
  sudo cp /opt/quire/lib/systemd/system/quire.service /etc/systemd/system/
  sudo systemctl daemon-reload && sudo systemctl enable --now quire
  curl -s http://localhost:8000/api/v1/ready

Runtime files are looked up beside the binary (lib/quire); QUIRE_RUNTIME_DIR overrides.
INSTALL

{
  echo "quire $version"
  echo
  echo "quire itself is licensed under MIT OR Apache-2.0 (texts in LICENSE-MIT and LICENSE-APACHE)."
  echo
  echo "Bundled runtime files:"
  echo "- lib/quire/lib/libpdfium.so: PDFium (BSD-3-Clause AND Apache-2.0), https://pdfium.googlesource.com/pdfium,"
  echo "  as built by pypdfium2 ($(grep -o 'pypdfium2==[0-9.]*' scripts/setup.sh | head -1)), https://github.com/bblanchon/pdfium-binaries."
  echo "- lib/quire/models/*.onnx: PaddleOCR PP-OCR models (Apache-2.0), https://github.com/PaddlePaddle/PaddleOCR,"
  echo "  as converted by RapidOCR ($(grep -o 'rapidocr==[0-9.]*' scripts/setup.sh | head -1))."
  echo
  echo "Linked at run time from Debian packages (not bundled): Tesseract (Apache-2.0), Leptonica (BSD-2-Clause)."
  echo
  echo "Rust crates compiled into bin/quire, with their licences, are listed in THIRD-PARTY-CRATES."
} > "$dir/share/doc/quire/NOTICE"
cargo tree --locked -p quire -e normal --prefix none --format '{p} {l}' 2>/dev/null \
  | sed 's/ (.*)//; s/ (\*)$//' | sort -u > "$dir/share/doc/quire/THIRD-PARTY-CRATES"
if [[ -f /usr/share/common-licenses/Apache-2.0 ]]; then
  cp /usr/share/common-licenses/Apache-2.0 "$dir/share/doc/quire/LICENSE-APACHE"
else
  echo "Apache License 2.0: https://www.apache.org/licenses/LICENSE-2.0" > "$dir/share/doc/quire/LICENSE-APACHE"
fi
cat > "$dir/share/doc/quire/LICENSE-MIT" <<'MIT'
Permission is hereby granted, free of charge, to any person obtaining a copy of this software
and associated documentation files (the "Software"), to deal in the Software without
restriction, including without limitation the rights to use, copy, modify, merge, publish,
distribute, sublicense, and/or sell copies of the Software, and to permit persons to whom the
Software is furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all copies or
substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING
BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND
NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM,
DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
MIT

# The shared libraries the binary and PDFium need, and the Debian package of each: the
# README's packages must cover them (checked by scripts/check-release.sh).
mapfile -t libs < <(ldd "$dir/bin/quire" "$dir/lib/quire/lib/libpdfium.so" \
  | awk '/=> \// {print $3}' | sort -u)
declare -A owner=()
if (( ${#libs[@]} )); then
  real=()
  for lib in "${libs[@]}"; do real+=("$(readlink -f "$lib")"); done
  # One dpkg query for all of them (by the file's real path and by the path ldd gave).
  while IFS= read -r line; do
    pkg=${line%%: *}; path=${line#*: }
    owner[$path]=${pkg%%,*}
  done < <(dpkg -S "${real[@]}" "${libs[@]}" 2>/dev/null || true)
  for i in "${!libs[@]}"; do
    pkg=${owner[${real[$i]}]:-${owner[${libs[$i]}]:-?}}
    printf '%s\t%s\n' "$(basename "${libs[$i]}")" "$pkg"
  done > "$dir/share/doc/quire/DEPENDS"
else
  : > "$dir/share/doc/quire/DEPENDS"
fi

tar -C "$stage" -czf "$out/$name.tar.gz" "$name"
log "built $out/$name.tar.gz ($(du -h "$out/$name.tar.gz" | cut -f1), $profile profile)"
echo "$out/$name.tar.gz"
