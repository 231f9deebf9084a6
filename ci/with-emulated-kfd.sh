#!/usr/bin/env bash
# Run a command on the real ROCm user space (libamdhip64 -> ROCr -> thunk),
# unmodified, over the emulated KFD device (tests/emukfd): builds
# libxad_emukfd.so if needed (cargo build --workspace) and runs
#   LD_PRELOAD=<target>/<profile>/libxad_emukfd.so CMD...
# The real libraries then find one GPU per entry of XAD_KFD_DEVICES
# (default gfx1030), named "xad-harness emulated KFD <target>", and every
# dispatch runs on the embedded emulator. This exercises the real HIP runtime
# end to end; it is not a hardware run, and its device name says so.
#
#   ci/with-emulated-kfd.sh target/debug/xad-harness devices
#   XAD_KFD_DEVICES=gfx1030,gfx90a ci/with-emulated-kfd.sh target/debug/xad-harness run --backend hip
#   XAD_KFD_TRACE=1 ci/with-emulated-kfd.sh target/debug/xad-harness run --backend hip --case basic
#
# Which runtime: XAD_KFD_RUNTIME=5.2 (default) is the system's (Debian 12's
# libamdhip64 5.2.3, libhsa-runtime64 and libhsakmt); CMD must be a binary
# linked against it. 6.4 and 7.2 are Debian's unstable/experimental builds
# that ci/fetch-hip.sh fetches (their ROCr carries the thunk); CMD must then
# be a binary built against that root (ci/hip-matrix.sh builds one in
# target/hip-matrix/build) and it runs under that fetch's own loader and C
# runtime (they need glibc >= 2.38):
#   XAD_KFD_RUNTIME=7.2 XAD_KFD_DEVICES=gfx1030 ci/with-emulated-kfd.sh \
#       target/hip-matrix/build/debug/xad-harness run --backend hip
#
# Environment: CARGO_PROFILE=release builds/uses the release library (default
# dev); CARGO_TARGET_DIR as for cargo; XAD_KFD_DEVICES, XAD_KFD_TRACE,
# XAD_KFD_WATCHDOG and the fault knobs (XAD_KFD_FLIP_BIT, _SKIP_LANE,
# _WRITE_PAST_END, _HANG, _SDMA_FLIP_BIT) pass through
# (tests/emukfd/src/config.rs), as does the runtime's own HSA_ENABLE_SDMA=0
# (copies on blit kernels instead of the device's SDMA engine). Exit codes:
# CMD's own, or 2 (usage), 3 (the device library could not be built), 77
# (a 6.4/7.2 runtime that cannot be fetched).
set -euo pipefail

if [ "$#" -eq 0 ]; then
    echo "usage: $0 CMD [ARGS...]" >&2
    exit 2
fi

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runtime="${XAD_KFD_RUNTIME:-5.2}"
case "$runtime" in
    5.2|6.4|7.2) ;;
    *) echo "$0: XAD_KFD_RUNTIME must be 5.2, 6.4 or 7.2, not ${runtime}" >&2; exit 2 ;;
esac
profile="${CARGO_PROFILE:-dev}"
case "$profile" in
    dev) profile_dir=debug; profile_flag=() ;;
    release) profile_dir=release; profile_flag=(--release) ;;
    *) echo "$0: CARGO_PROFILE must be dev or release, not $profile" >&2; exit 2 ;;
esac
target="${CARGO_TARGET_DIR:-target}"
case "$target" in
    /*) ;;
    *) target="$root/$target" ;;
esac

# cargo decides whether anything needs rebuilding; quiet unless it fails.
# The device links the harness library, whose build needs a HIP root.
. "$root/ci/env.sh"
# The whole workspace, as ci/test.sh builds it: `-p xad-emukfd` alone would
# unify the library's dependencies' features differently and rebuild it.
if ! build_log="$(cd "$root" && cargo build --workspace "${profile_flag[@]}" 2>&1)"; then
    echo "$0: cargo build --workspace failed:" >&2
    echo "$build_log" >&2
    exit 3
fi
library="$target/$profile_dir/libxad_emukfd.so"
if [ ! -f "$library" ]; then
    echo "$0: $library was not produced" >&2
    exit 3
fi
export LD_PRELOAD="$library${LD_PRELOAD:+:$LD_PRELOAD}"
if [ "$runtime" = 5.2 ]; then
    exec "$@"
fi
# The fetched runtime (cached after the first fetch; 77 when the archive is
# out of reach, which says nothing about this code).
set +e
fetched="$(bash "$root/ci/fetch-hip.sh" "$runtime")"
status=$?
set -e
[ "$status" = 0 ] || exit "$status"
lib="$fetched/usr/lib/x86_64-linux-gnu"
sys="$(dirname "$fetched")/sysroot/usr/lib/x86_64-linux-gnu"
exec "$sys/ld-linux-x86-64.so.2" --library-path "$sys:$lib" "$@"
