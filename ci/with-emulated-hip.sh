#!/usr/bin/env bash
# Run a command with the emulated HIP device library standing in for the HIP
# runtime: builds tests/emuhip (libxad_emuhip.so, SONAME libamdhip64.so.5) if
# needed, links it as target/emuhip-lib/libamdhip64.so.5 and runs
#   LD_LIBRARY_PATH=target/emuhip-lib CMD...
# so a binary linked against the real libamdhip64.so.5 (xad-harness) loads the
# emulator instead. Results are labelled "xad-harness emulated gfx1100": this
# exercises the HIP code path, it is not a hardware run.
#
#   ci/with-emulated-hip.sh target/debug/xad-harness run --backend hip
#   XAD_EMUHIP_FLIP_BIT=5:31 ci/with-emulated-hip.sh target/debug/xad-harness run --backend hip
#
# Environment: CARGO_PROFILE=release builds/uses the release library (default
# dev); HIP_PATH defaults to /usr (Debian's libamdhip64-dev). Fault knobs
# (XAD_EMUHIP_*) pass through; see tests/emuhip/README.md.
set -euo pipefail

if [ "$#" -eq 0 ]; then
    echo "usage: $0 CMD [ARGS...]" >&2
    exit 2
fi

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export HIP_PATH="${HIP_PATH:-/usr}"
profile="${CARGO_PROFILE:-dev}"
case "$profile" in
    dev) profile_dir=debug; profile_flag=() ;;
    release) profile_dir=release; profile_flag=(--release) ;;
    *) echo "$0: CARGO_PROFILE must be dev or release, not $profile" >&2; exit 2 ;;
esac
target="${CARGO_TARGET_DIR:-$root/target}"

# cargo decides whether anything needs rebuilding; quiet unless it fails.
if ! build_log="$(cd "$root" && cargo build -p xad-emuhip "${profile_flag[@]}" 2>&1)"; then
    echo "$0: cargo build -p xad-emuhip failed:" >&2
    echo "$build_log" >&2
    exit 3
fi

library="$target/$profile_dir/libxad_emuhip.so"
if [ ! -f "$library" ]; then
    echo "$0: $library was not produced" >&2
    exit 3
fi
lib_dir="$target/emuhip-lib"
mkdir -p "$lib_dir"
ln -sfn "$library" "$lib_dir/libamdhip64.so.5"

export LD_LIBRARY_PATH="$lib_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
exec "$@"
