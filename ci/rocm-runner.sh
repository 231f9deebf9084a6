#!/usr/bin/env bash
# For ROCm CI runners on GPU nodes: hardware only. Each device runs the cases
# of its own target (any target of docs/targets.md, not only gfx1100); a node
# without a usable AMD GPU of one of those targets exits 77 (skipped), never
# passes on the emulator.
# Reports: xad-report.json and xad-junit.xml in the current directory (or
# $XAD_REPORT_DIR), written also when the run fails.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
out="${XAD_REPORT_DIR:-$PWD}"
cd "$here"
. ci/env.sh
cargo build --release --locked --bin xad-harness
exec target/release/xad-harness run --backend hip --json "$out/xad-report.json" --junit "$out/xad-junit.xml" "$@"
