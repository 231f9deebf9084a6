#!/usr/bin/env bash
# The test job: set up, build everything (including the emulated HIP device
# library the end-to-end tests load), run the whole test suite, the loader fuzz
# pass, the SIMD paths and the HIP 6.4/7.2 matrix (ci/hip-matrix.sh), and close
# with one "total: N passed, N failed" line summed over every test binary.
# Cold on 2 cores, fresh clone: 20 min 45 s measured 2026-12-06 (the HIP 6.4
# matrix stage 364 s with its fetch, 7.2 73 s).
set -euo pipefail
cd "$(dirname "$0")/.."
# Building needs and what only the tests need (Slurm, munge, qemu, numpy).
bash ci/setup.sh --tests
. ci/env.sh
cargo build --locked --workspace
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
status=0
cargo test --locked --workspace --lib --bins --tests 2>&1 | tee "$log" || status=$?
XAD_FUZZ_ITERS=1000000 XAD_FUZZ_SECONDS=120 cargo test --locked --test catalogue -- codeobj_fuzz:: --nocapture 2>&1 | tee -a "$log" || status=1
# The input generator's other SIMD paths, under emulated CPUs.
bash ci/simd-paths.sh 2>&1 | tee -a "$log" || status=1
# The HIP version matrix: the real HIP 6.4 and 7.2 runtimes (fetched from Debian
# into target/hip-matrix). XAD_HIP_MATRIX=0 skips it (e.g. offline).
if [ "${XAD_HIP_MATRIX:-1}" != 0 ]; then
  bash ci/hip-matrix.sh 2>&1 | tee -a "$log" || status=1
fi
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } }
     END { printf "total: %d passed, %d failed\n", p, f }' "$log"
exit "$status"
