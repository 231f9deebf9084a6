#!/usr/bin/env bash
# The test job: set up, build everything (including the emulated HIP device
# library the end-to-end tests load), run the whole test suite, the loader fuzz
# pass, the SIMD paths and the HIP 6.4/7.2 matrix (ci/hip-matrix.sh), and close
# with each stage's time and one "total: N passed, N failed" line summed over
# every test binary. Cold, fresh clone, 2 cores: 525 to 595 s measured
# 2026-12-06, on days up to 20 % apart (CONTRIBUTING.md, "Where the suite's
# time goes", has each stage).
set -euo pipefail
cd "$(dirname "$0")/.."
log="$(mktemp)"
fetch_log="$(mktemp)"
fuzz_log="$(mktemp)"
trap 'rm -f "$log" "$fetch_log" "$fuzz_log"' EXIT
status=0
stages=()
# record NAME SECONDS RC: one row of the closing table; a failure fails the job.
record() {
  stages+=("$(printf '%-34s %4d s%s' "$1" "$2" "$([ "$3" = 0 ] || echo "  FAILED (exit $3)")")")
  [ "$3" = 0 ] || status=1
}
# stage NAME COMMAND...: run COMMAND (its output to the terminal and the log),
# remember its time, and note a failure without stopping the job.
stage() {
  local name="$1" started=$SECONDS rc=0
  shift
  "$@" 2>&1 | tee -a "$log" || rc=$?
  record "$name" $((SECONDS - started)) "$rc"
}
# Building needs and what only the tests need (Slurm, munge, qemu, numpy).
stage "set-up (ci/setup.sh --tests)" bash ci/setup.sh --tests
. ci/env.sh
# The HIP matrix's runtimes are downloads: fetched while the build compiles
# (one after the other: they share apt's private lists), waited for before
# the matrix. ci/hip-matrix.sh fetches again, which finds them cached or says
# why not. XAD_HIP_MATRIX=0 skips the matrix (e.g. offline).
fetch_pid=
if [ "${XAD_HIP_MATRIX:-1}" != 0 ]; then
  started_fetch=$SECONDS
  { bash ci/fetch-hip.sh 6.4; bash ci/fetch-hip.sh 7.2; echo "fetched in $((SECONDS - started_fetch)) s"; } >"$fetch_log" 2>&1 &
  fetch_pid=$!
fi
# One build of everything the tests run: the test harnesses, the binary and the
# emulated device libraries share one feature set (Cargo.toml's feature pins),
# so nothing is compiled twice.
stage "build (cargo test-all --no-run, build)" bash -c 'cargo test-all --locked --no-run && cargo build --locked --workspace'
# The loader fuzz pass: 630,000 mutated code objects (what 120 s on one core
# covered before it ran on every core), run beside the tests, which leave
# much of the machine idle while they wait on the processes they spawn. A
# count, not a time: a busier machine takes longer, never checks fewer. Its
# test executable is run directly: a second cargo would wait on the first's
# lock on the build directory.
isa_tests="$(cargo test --locked --test isa --no-run 2>&1 | sed -n 's/.*Executable tests\/isa\/main.rs (\(.*\))/\1/p' | tail -1)"
fuzz_started=$SECONDS
if [ -x "$isa_tests" ]; then
  XAD_FUZZ_ITERS=630000 XAD_FUZZ_SECONDS=900 "$isa_tests" codeobj_fuzz:: --nocapture >"$fuzz_log" 2>&1 &
else
  { echo "ci/test.sh: no isa test executable to fuzz with (the build failed)"; exit 1; } >"$fuzz_log" 2>&1 &
fi
fuzz_pid=$!
# Every test: the fast loop's crates and the slow ones (.cargo/config.toml).
stage "tests (cargo test-all)" cargo test-all --locked
fuzz_rc=0
wait "$fuzz_pid" || fuzz_rc=$?
tee -a "$log" <"$fuzz_log"
record "fuzz (codeobj_fuzz, beside the tests)" $((SECONDS - fuzz_started)) "$fuzz_rc"
# The input generator's other SIMD paths, under emulated CPUs.
stage "SIMD paths (qemu)" bash ci/simd-paths.sh
# The HIP version matrix: the real HIP 6.4 and 7.2 runtimes (fetched from Debian
# into target/hip-matrix), built in this job's own target directory: the
# dependencies are already compiled, and the kernels whose code object does
# not change with the runtime are not assembled again.
if [ -n "$fetch_pid" ]; then
  wait "$fetch_pid" || true
  sed 's/^/fetch: /' "$fetch_log"
  stage "HIP matrix (6.4, 7.2)" env XAD_MATRIX_TARGET_DIR="$PWD/target" bash ci/hip-matrix.sh
fi
echo "=== stages"
printf '%s\n' "${stages[@]}"
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } }
     END { printf "total: %d passed, %d failed\n", p, f }' "$log"
exit "$status"
