#!/usr/bin/env bash
# The HIP version matrix: build, link and test xad-harness against the real
# HIP 6.4 and 7.2 runtimes Debian publishes (HIP 5.2, Debian 12's own, is what
# ci/test.sh's main run uses). For each version:
#   1. ci/fetch-hip.sh fetches headers, runtime and unstable's glibc/libstdc++
#      into target/hip-matrix/<v>/root (cached: later runs fetch nothing);
#   2. the crate is built with that root as HIP_PATH (bindings, shim and link
#      path all from that root) in target/hip-matrix/build, one target dir for
#      every version: only xad-harness itself is rebuilt per version, its
#      dependencies are shared, and build.rs assembles again only the kernels
#      whose code object version that runtime changes. XAD_MATRIX_TARGET_DIR
#      names another target dir: ci/test.sh, which runs the matrix last, gives
#      it its own (target/), whose dependencies are already built;
#   3. the tests that load the real runtime run under unstable's loader (the
#      runtimes need glibc >= 2.38): the lib API against the runtime
#      (tests/real_hip/hip_runtime.rs) and the CLI's no-device behaviour
#      (tests/real_hip/hip_real_runtime.rs: devices, run --backend hip -> exit 77);
#   4. the emulated HIP device library is built for that version (its SONAME,
#      symbol versions and hipDeviceProp_tR0600 from the root's headers) and the
#      tests that load it run: its own tests, the end-to-end suite, fault lines
#      and the shim layout check (tests/hip/hip_layout.rs);
#   5. the emulated KFD device (tests/emukfd) runs this version's real HIP,
#      ROCr and thunk end to end (tests/hip/emukfd_e2e.rs, fetched runtime).
#
#   bash ci/hip-matrix.sh            # 6.4 and 7.2
#   bash ci/hip-matrix.sh 7.2        # one version
#
# When Debian's archive cannot be reached or no longer carries a version, that
# version is reported SKIPPED and the run goes on; XAD_HIP_MATRIX=require makes
# that a failure (for a CI that must prove all three).
#
# Prints the usual "test result:" lines, so ci/test.sh's total counts them.
set -euo pipefail
cd "$(dirname "$0")/.."
. ci/env.sh

versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(6.4 7.2)
status=0
for v in "${versions[@]}"; do
    started=$SECONDS
    set +e
    root="$(bash ci/fetch-hip.sh "$v")"
    fetched=$?
    set -e
    if [ "$fetched" = 77 ] && [ "${XAD_HIP_MATRIX:-1}" != require ]; then
        # Debian's archive is out of reach or has dropped the version: loud, not a failure
        # of this code (XAD_HIP_MATRIX=require makes it one).
        echo "=== HIP $v: SKIPPED: the runtime could not be fetched (see the line above)"
        continue
    fi
    [ "$fetched" = 0 ] || { echo "=== HIP $v: FAILED to fetch (exit $fetched)"; status=1; continue; }
    lib="$root/usr/lib/x86_64-linux-gnu"
    sys="$(dirname "$root")/sysroot/usr/lib/x86_64-linux-gnu"
    loader="$sys/ld-linux-x86-64.so.2"
    [ -x "$loader" ] || { echo "ci/hip-matrix.sh: $loader missing: the fetch of HIP $v is incomplete" >&2; exit 3; }
    echo "=== HIP $v: $root"
    export HIP_PATH="$root/usr" ROCM_PATH="" CARGO_TARGET_DIR="${XAD_MATRIX_TARGET_DIR:-$PWD/target/hip-matrix/build}"
    # Test executables that load the real runtime run under unstable's loader.
    if ! CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER="$loader --library-path $sys:$lib" \
        XAD_HIP_LOADER="$loader" XAD_HIP_LIBRARY_PATH="$sys:$lib" XAD_HIP_EXPECT="$v" \
        cargo test --locked --test real_hip -- --nocapture 2>&1; then
        status=1
    fi
    # The stand-in and the emulated KFD device: built first (the tests would
    # otherwise build them on demand). The emulated KFD tests run the real
    # runtime of this version on the device (tests/hip/emukfd_e2e.rs, the
    # tests that read XAD_HIP_EXPECT; the 5.2 ones skip here).
    if ! { cargo build --locked -p xad-emuhip -p xad-emukfd 2>&1 &&
        cargo test --locked -p xad-emuhip 2>&1 &&
        XAD_HIP_EXPECT="$v" cargo test --locked --test hip -- emuhip_e2e:: fault_lines:: hip_layout:: emukfd_e2e:: 2>&1; }; then
        status=1
    fi
    unset HIP_PATH ROCM_PATH CARGO_TARGET_DIR
    echo "=== HIP $v: $((SECONDS - started)) s"
done
exit "$status"
