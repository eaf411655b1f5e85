#!/usr/bin/env bash
# Runs quire on this machine: installs what is missing, builds a release binary and starts
# `quire serve` on the embedded store (no Redis needed) at http://0.0.0.0:8000.
# Settings come from ./config.toml and the environment (see README.md).
# QUIRE_PROFILE=dev builds and runs the debug binary instead (the test suite uses it to check
# this script without a release build).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
profile="${QUIRE_PROFILE:-release}"
case "$profile" in
  release) cargo build --release --locked -p quire; dir=release ;;
  dev) cargo build --locked -p quire; dir=debug ;;
  *) echo "run: QUIRE_PROFILE must be release or dev, not '$profile'" >&2; exit 2 ;;
esac
# libgomp reads this before main(): one OpenMP thread per Tesseract engine (5x faster here).
export OMP_THREAD_LIMIT="${OMP_THREAD_LIMIT:-1}"
exec "${CARGO_TARGET_DIR:-target}/$dir/quire" serve "$@"
