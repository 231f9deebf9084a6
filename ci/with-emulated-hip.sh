#!/usr/bin/env bash
# Run a command with the emulated HIP device library standing in for the HIP
# runtime: builds tests/emuhip (libxad_emuhip.so) against the HIP root in use
# if needed, links it under the real runtime's SONAME (libamdhip64.so.5, .6 or
# .7) in target/emuhip-lib and runs
#   LD_LIBRARY_PATH=target/emuhip-lib:<system lib dirs> CMD...
# so a binary linked against the real libamdhip64 (xad-harness) loads the
# emulator instead. Results are labelled "xad-harness emulated gfx1100": this
# exercises the HIP code path, it is not a hardware run.
#
#   ci/with-emulated-hip.sh target/debug/xad-harness run --backend hip
#   XAD_EMUHIP_FLIP_BIT=5:31 ci/with-emulated-hip.sh target/debug/xad-harness run --backend hip
#   HIP_PATH=$PWD/target/hip-matrix/6.4/root/usr CARGO_TARGET_DIR=target/hip-6.4 \
#     ci/with-emulated-hip.sh target/hip-6.4/debug/xad-harness devices
#
# Which HIP: the root is found as the harness's build finds it ($HIP_PATH,
# $ROCM_PATH, `hipconfig --path`, /opt/rocm, /usr: the first with
# include/hip/hip_runtime_api.h), and its hip/hip_version.h gives the major
# version, so the stand-in is built against the same headers as a harness
# built in the same environment. When CMD is an ELF file that needs a
# libamdhip64.so.N of another major, the script refuses (exit 2) rather than
# run a binary whose struct layouts the stand-in would not match.
#
# Why the system library directories follow the stand-in's: a harness carries
# a run path to its HIP root's lib directory. ci/fetch-hip.sh keeps unstable's
# glibc and libstdc++ out of that directory (in a sysroot beside it), but a
# root extracted some other way may hold a C runtime this system's loader
# cannot use. LD_LIBRARY_PATH is searched before a run path, so listing the
# system's own directories there keeps every library but the HIP runtime on
# the system's side.
#
# Environment: CARGO_PROFILE=release builds/uses the release library (default
# dev); CARGO_TARGET_DIR as for cargo. Fault knobs (XAD_EMUHIP_*) pass through;
# see tests/emuhip/README.md. Exit codes: CMD's own, or 2 (usage, HIP mismatch),
# 3 (the stand-in could not be built).
set -euo pipefail

if [ "$#" -eq 0 ]; then
    echo "usage: $0 CMD [ARGS...]" >&2
    exit 2
fi

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
profile="${CARGO_PROFILE:-dev}"
case "$profile" in
    dev) profile_dir=debug; profile_flag=() ;;
    release) profile_dir=release; profile_flag=(--release) ;;
    *) echo "$0: CARGO_PROFILE must be dev or release, not $profile" >&2; exit 2 ;;
esac
# Absolute: cargo takes a relative CARGO_TARGET_DIR from the directory it runs
# in (the repository root, below), and the symlink and LD_LIBRARY_PATH must
# work from anywhere.
target="${CARGO_TARGET_DIR:-target}"
case "$target" in
    /*) ;;
    *) target="$root/$target" ;;
esac

# The HIP root, in the order crates/xad-build/src/hip_root.rs and tests/emuhip/build.rs use.
hip_root=""
candidates=("${HIP_PATH:-}" "${ROCM_PATH:-}")
if command -v hipconfig >/dev/null 2>&1; then
    candidates+=("$(hipconfig --path 2>/dev/null || true)")
fi
candidates+=(/opt/rocm /usr)
for candidate in "${candidates[@]}"; do
    if [ -n "$candidate" ] && [ -f "$candidate/include/hip/hip_runtime_api.h" ]; then
        hip_root="$candidate"
        break
    fi
done
if [ -z "$hip_root" ]; then
    echo "$0: no include/hip/hip_runtime_api.h under \$HIP_PATH, \$ROCM_PATH, hipconfig --path, /opt/rocm or /usr; install libamdhip64-dev or set HIP_PATH" >&2
    exit 2
fi
major="$(sed -n 's/^#define HIP_VERSION_MAJOR[[:space:]]*\([0-9][0-9]*\).*/\1/p' "$hip_root/include/hip/hip_version.h" 2>/dev/null | head -n 1)"
if [ -z "$major" ]; then
    echo "$0: $hip_root/include/hip/hip_version.h defines no HIP_VERSION_MAJOR" >&2
    exit 2
fi
soname="libamdhip64.so.$major"

# A binary linked against another major expects other symbols and layouts.
if [ -f "$1" ] && command -v readelf >/dev/null 2>&1; then
    needed="$(readelf -d "$1" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(libamdhip64\.so\.[0-9]*\)\].*/\1/p' | head -n 1)"
    if [ -n "$needed" ] && [ "$needed" != "$soname" ]; then
        echo "$0: $1 needs $needed but the HIP root $hip_root is HIP $major ($soname); set HIP_PATH to the root it was built with" >&2
        exit 2
    fi
fi

# cargo decides whether anything needs rebuilding; quiet unless it fails.
# HIP_PATH pins the build to the root chosen above.
if ! build_log="$(cd "$root" && HIP_PATH="$hip_root" cargo build -p xad-emuhip "${profile_flag[@]}" 2>&1)"; then
    echo "$0: cargo build -p xad-emuhip failed:" >&2
    echo "$build_log" >&2
    exit 3
fi

library="$target/$profile_dir/libxad_emuhip.so"
if [ ! -f "$library" ]; then
    echo "$0: $library was not produced" >&2
    exit 3
fi
if command -v readelf >/dev/null 2>&1 && ! readelf -d "$library" | grep -q "(SONAME).*\[$soname\]"; then
    echo "$0: $library does not carry SONAME $soname" >&2
    exit 3
fi
lib_dir="$target/emuhip-lib"
mkdir -p "$lib_dir"
ln -sfn "$library" "$lib_dir/$soname"

# The directories the system's loader takes glibc from (see the header).
system_dirs="$(ldconfig -p 2>/dev/null | sed -n 's/.*libc\.so\.6 (libc6,x86-64.*) => \(.*\)\/libc\.so\.6$/\1/p' | head -n 1)"
system_dirs="${system_dirs:-/lib/x86_64-linux-gnu}"
case "$system_dirs" in
    /lib/*) system_dirs="$system_dirs:/usr${system_dirs}" ;;
esac

export LD_LIBRARY_PATH="$lib_dir:$system_dirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
exec "$@"
