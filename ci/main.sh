#!/usr/bin/env bash
# The main job: set up, build, and run every case. On a machine without a
# usable AMD GPU of a target the harness has, the embedded emulator runs the
# gfx1100 cases and every line says so.
# Extra arguments go to `xad-harness run` (e.g. --backend hip --json r.json).
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh
. ci/env.sh
cargo build --release --locked --bin xad-harness
exec target/release/xad-harness run "$@"
