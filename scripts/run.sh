#!/usr/bin/env bash
# Runs quire on this machine: installs what is missing, builds a release binary and starts
# `quire serve` on the embedded store (no Redis needed) at http://0.0.0.0:8000.
# Settings come from ./config.toml and the environment (see README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo build --release --locked -p quire
# libgomp reads this before main(): one OpenMP thread per Tesseract engine (5x faster here).
export OMP_THREAD_LIMIT="${OMP_THREAD_LIMIT:-1}"
exec target/release/quire serve "$@"
