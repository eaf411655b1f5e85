#!/usr/bin/env bash
# Side-by-side corpus benchmark: quire's library path against the peers of ../shared/bench
# (markitdown's in-process API, pandoc, pdftotext, PyMuPDF), same files, same run, one CPU.
# Usage: scripts/bench-corpus.sh [--types pdf,docx,...] [--runs N] [--peers a,b]
# Needs the peers' virtualenv (see ../shared/bench/README.md); BENCH_VENV points at it.
set -euo pipefail
cd "$(dirname "$0")/.."
types="txt,md,html,xml,json,rtf,csv,docx,pptx,pptm,potx,potm,xlsx,xlsm,xls,pdf"
runs=3
peers="markitdown-api,pandoc,pdftotext,pymupdf-text"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --types) types=$2; shift 2;;
    --runs) runs=$2; shift 2;;
    --peers) peers=$2; shift 2;;
    *) echo "unknown option $1" >&2; exit 2;;
  esac
done
corpus=${CORPUS:-../shared/corpus}
out=${BENCH_OUT:-target/bench}
mkdir -p "$out"
stamp=$(date -u +%F)
cargo build --release -q -p quire --example bench_quire
pin=""; command -v taskset >/dev/null && [[ $(nproc) -gt 1 ]] && pin="taskset -c 1"
echo "quire: timing corpus types $types" >&2
$pin "${CARGO_TARGET_DIR:-target}/release/examples/bench_quire" "$corpus" "$out/quire-$stamp.csv" --types "$types" --runs "$runs"
echo "peers: $peers" >&2
../shared/bench/peers.sh --input "$corpus:corpus" --types "$types" --peers "$peers" --runs "$runs" \
  --timeout 300 --out "$out/peers-$stamp.csv"
python3 scripts/bench-summary.py "$out/quire-$stamp.csv" "$out/peers-$stamp.csv"
