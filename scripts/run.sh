#!/usr/bin/env bash
# Runs quire on this machine: installs what is missing, builds a release binary and starts
# `quire serve` on the embedded store (no Redis needed) at http://0.0.0.0:8000.
# Settings come from ./config.toml and the environment (see README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo build --release --locked -p quire
exec target/release/quire serve "$@"
