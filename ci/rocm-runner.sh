#!/usr/bin/env bash
# For ROCm CI runners on GPU nodes: hardware only. A node without a usable
# gfx1100 device exits 77 (skipped), never passes on the emulator.
# Reports: xad-report.json and xad-junit.xml in the current directory (or
# $XAD_REPORT_DIR), written also when the run fails.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
out="${XAD_REPORT_DIR:-$PWD}"
cd "$here"
. ci/env.sh
cargo build --release --locked --bin xad-harness
exec target/release/xad-harness run --backend hip --json "$out/xad-report.json" --junit "$out/xad-junit.xml" "$@"
