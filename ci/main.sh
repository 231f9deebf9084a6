#!/usr/bin/env bash
# The main job: set up, build, and run every case. On a machine without a
# usable gfx1100 GPU the embedded emulator runs them and every line says so.
# Extra arguments go to `xad-harness run` (e.g. --backend hip --json r.json).
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh
. ci/env.sh
cargo build --release --locked --bin xad-harness
exec target/release/xad-harness run "$@"
