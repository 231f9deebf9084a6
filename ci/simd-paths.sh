#!/usr/bin/env bash
# The input generator is compiled for AVX2, SSE4.1 and baseline x86-64 and
# picks one at run time (multiversion), so a machine exercises only its own.
# Run the generator's unit tests (each path against the per-lane definition)
# under qemu's CPU models for all three, and check the dispatch really took
# each path. Prints cargo's "test result:" lines for ci/test.sh's total.
set -euo pipefail
cd "$(dirname "$0")/.."
. ci/env.sh
if [ "$(uname -m)" != x86_64 ] || ! command -v qemu-x86_64 >/dev/null 2>&1; then
  echo "ci/simd-paths.sh: skipped (needs x86_64 and qemu-x86_64 from qemu-user); only this CPU's path was tested"
  exit 0
fi
lib="$(cargo test --locked --lib --no-run 2>&1 | sed -n 's/.*Executable unittests src\/lib.rs (\(.*\))/\1/p' | tail -1)"
[ -x "$lib" ] || { echo "ci/simd-paths.sh: could not find the library's test binary" >&2; exit 1; }
cargo build --locked --bin xad-harness -q
status=0
for pair in qemu64:baseline Nehalem:sse4.1 Haswell:avx2; do
  cpu="${pair%%:*}" want="${pair#*:}"
  echo "== inputs on qemu -cpu $cpu (expect the $want path)"
  # The xad part's 4096 lanes go through the generator; the SHA-256 part (the
  # sha2 crate under qemu, most of the time here) is not what this checks.
  got="$(qemu-x86_64 -cpu "$cpu" target/debug/xad-harness bench --lanes 4096 --sha-lanes 1 --repeat 1 --seed 1 2>/dev/null | sed -n 's/.*host SIMD \([a-z0-9.]*\),.*/\1/p')"
  if [ "$got" != "$want" ]; then
    echo "ci/simd-paths.sh: qemu -cpu $cpu dispatched to '$got', expected '$want'" >&2
    status=1
  fi
  out="$(qemu-x86_64 -cpu "$cpu" "$lib" inputs:: 2>&1)" || status=1
  grep -E '^test |^test result|panicked' <<<"$out" || true
done
exit "$status"
