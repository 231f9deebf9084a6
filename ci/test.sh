#!/usr/bin/env bash
# The test job: set up, build everything (including the emulated HIP device
# library the end-to-end tests load), and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh
. ci/env.sh
cargo build --locked --workspace
cargo test --locked --workspace
