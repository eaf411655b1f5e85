#!/usr/bin/env bash
# The MCP server checked with a real MCP client, the official Python SDK (`mcp`, pinned, in a
# virtualenv under ~/.cache/quire created on first use): over stdio (`quire mcp`) and over
# Streamable HTTP (`/mcp` on `quire serve`, embedded store in a temporary folder, 127.0.0.1).
# Each: initialize, list tools, convert a generated PDF to Markdown and to chunks, read the error
# for a damaged PDF; stdio also by path inside and outside its folder, HTTP a job's life.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="${QUIRE_CACHE_DIR:-$HOME/.cache/quire}/mcp-venv"
version=2.3.0
if ! "$venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('mcp') != '$version')" 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q "mcp==$version"
fi
cd "$root"
cargo build --locked -q -p quire
target="${CARGO_TARGET_DIR:-$root/target}"
[[ "$target" = /* ]] || target="$root/$target"
quire="$target/debug/quire"
tmp=$(mktemp -d)
pid=""
cleanup() {
  if [[ -n "$pid" ]]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
# A two-page PDF written by hand (no generator needed): text on each page.
python3 - "$tmp/docs/check.pdf" <<'PY'
import os, sys
path = sys.argv[1]
os.makedirs(os.path.dirname(path), exist_ok=True)
pages = ["MCP check document. Page one has this sentence.", "The second page says something else."]
objs = ["<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [%s] /Count %d >>" % (" ".join(f"{3 + 2 * i} 0 R" for i in range(len(pages))), len(pages))]
for i, text in enumerate(pages):
    stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
    objs.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * i} 0 R /Resources << /Font << /F1 {3 + 2 * len(pages)} 0 R >> >> >>")
    objs.append(f"<< /Length {len(stream)} >>\nstream\n{stream.decode()}\nendstream")
objs.append("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
out = bytearray(b"%PDF-1.4\n")
offsets = []
for n, body in enumerate(objs, 1):
    offsets.append(len(out))
    out += f"{n} 0 obj\n{body}\nendobj\n".encode()
xref = len(out)
out += f"xref\n0 {len(objs) + 1}\n0000000000 65535 f \n".encode()
for o in offsets:
    out += f"{o:010d} 00000 n \n".encode()
out += f"trailer\n<< /Size {len(objs) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
open(path, "wb").write(out)
PY

start=$(date +%s.%N)
"$venv/bin/python" tests/mcp/client.py stdio "$quire" "$tmp/docs/check.pdf"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
(cd / && HOST=127.0.0.1 PORT="$port" UPLOAD_DIR="$tmp/uploads" OUTPUT_DIR="$tmp/outputs" \
  DATA_DIR="$tmp/data" WORKERS=1 LOG_LEVEL=warn CONVERSION_TIMEOUT=30 \
  exec "$quire" serve > "$tmp/serve.log" 2>&1) &
pid=$!
for _ in $(seq 200); do
  curl -s -o /dev/null "http://127.0.0.1:$port/api/v1/health" && break
  kill -0 "$pid" 2>/dev/null || { cat "$tmp/serve.log" >&2; exit 1; }
  sleep 0.1
done
if ! "$venv/bin/python" tests/mcp/client.py http "http://127.0.0.1:$port/mcp" "$tmp/docs/check.pdf"; then
  cat "$tmp/serve.log" >&2
  exit 1
fi
echo "check-mcp: stdio and HTTP passed in $(python3 -c "import time; print(round(time.time() - $start, 1))") s"
