#!/usr/bin/env bash
# The emulated KFD device's speed, against its baseline in the same run: one
# target's whole catalogue through the real ROCm 5.2 stack on the emulated
# KFD device (ci/with-emulated-kfd.sh, --backend hip) versus the same
# binary's embedded emulator (--backend emu), same seed and lanes, release
# builds, alternating A/B so machine noise falls on both. Prints each pair,
# the median wall times and their ratio (issue 39's target: within 3x), and
# one dispatch's fixed cost through the stack (the median per-dispatch time
# of a 64-lane case the trace reports, which is almost all overhead).
# HSA_ENABLE_SDMA=0 passes through: the runtime then copies with blit
# kernels instead of the device's SDMA engine.
#
#   ci/bench-kfd.sh                 # gfx1030, 65536 lanes, 3 pairs
#   ci/bench-kfd.sh gfx90a 16384 5
#   XAD_KFD_RUNTIME=6.4 ci/bench-kfd.sh gfx1100   # through ROCm 6.4 (or 7.2)
#
# XAD_KFD_RUNTIME=6.4|7.2: the binary is built (release) against that
# fetched root in target/hip-matrix/build and both runs use that runtime's
# loader; the device library is the workspace's release build.
#
# Exit codes: 0 measured, 2 usage, 3 a build or run failed.
set -euo pipefail

target="${1:-gfx1030}"
lanes="${2:-65536}"
pairs="${3:-3}"
case "$lanes$pairs" in
    *[!0-9]*) echo "usage: $0 [TARGET] [LANES] [PAIRS]" >&2; exit 2 ;;
esac
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
. ci/env.sh
if ! cargo build --release --workspace >/dev/null 2>&1; then
    echo "$0: cargo build --release --workspace failed" >&2
    exit 3
fi
bin="${CARGO_TARGET_DIR:-target}/release/xad-harness"
runtime="${XAD_KFD_RUNTIME:-5.2}"
emu_prefix=()
if [ "$runtime" != 5.2 ]; then
    fetched="$(bash ci/fetch-hip.sh "$runtime")" || { echo "$0: ROCm $runtime could not be fetched" >&2; exit 3; }
    sys="$(dirname "$fetched")/sysroot/usr/lib/x86_64-linux-gnu"
    if ! HIP_PATH="$fetched/usr" ROCM_PATH="" CARGO_TARGET_DIR="$root/target/hip-matrix/build" \
        cargo build --release --locked -p xad-harness --bin xad-harness >/dev/null 2>&1; then
        echo "$0: the release build against ROCm $runtime failed" >&2
        exit 3
    fi
    bin="$root/target/hip-matrix/build/release/xad-harness"
    emu_prefix=("$sys/ld-linux-x86-64.so.2" --library-path "$sys:$fetched/usr/lib/x86_64-linux-gnu")
fi
export XAD_KFD_RUNTIME="$runtime"
args=(run --target "$target" --lanes "$lanes" --seed 11 --quiet)

now() { date +%s.%N; }
time_one() {
    local start end
    start=$(now)
    "$@" >/dev/null 2>&1 || { echo "$0: failed: $*" >&2; exit 3; }
    end=$(now)
    echo "$end - $start" | bc -l
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# Warm-up: the wrapper's own build check and the page cache, outside the pairs.
CARGO_PROFILE=release ci/with-emulated-kfd.sh /bin/true || { echo "$0: ci/with-emulated-kfd.sh failed" >&2; exit 3; }
emu_times=() kfd_times=()
for i in $(seq 1 "$pairs"); do
    e=$(time_one "${emu_prefix[@]}" "$bin" "${args[@]}" --backend emu)
    k=$(time_one env CARGO_PROFILE=release XAD_KFD_DEVICES="$target" ci/with-emulated-kfd.sh "$bin" "${args[@]}" --backend hip)
    printf 'pair %d: emu %.2f s, real ROCm %s on the emulated KFD device %.2f s\n' "$i" "$e" "$runtime" "$k"
    emu_times+=("$e") kfd_times+=("$k")
done
emu_median=$(printf '%s\n' "${emu_times[@]}" | median)
kfd_median=$(printf '%s\n' "${kfd_times[@]}" | median)
printf '%s catalogue, %s lanes: --backend emu %.2f s, through the real stack %.2f s: ratio %.2fx (target: within 3x)\n' \
    "$target" "$lanes" "$emu_median" "$kfd_median" "$(echo "$kfd_median / $emu_median" | bc -l)"

# One dispatch's fixed cost: a 64-lane basic case, where the emulator's own
# work is a few microseconds; the trace times each dispatch on the device.
case "$target" in gfx9*) basic=basic_w64 ;; *) basic=basic ;; esac
trace=$(CARGO_PROFILE=release XAD_KFD_TRACE=1 XAD_KFD_DEVICES="$target" \
    ci/with-emulated-kfd.sh "$bin" run --backend hip --target "$target" --case "$basic" --lanes 64 --seed 11 2>&1 >/dev/null || true)
per_dispatch=$(echo "$trace" | sed -n 's/.*KERNEL_DISPATCH.* in \([0-9.]*\) ms.*/\1/p' | median)
start=$(now)
CARGO_PROFILE=release XAD_KFD_DEVICES="$target" ci/with-emulated-kfd.sh "$bin" run --backend hip --target "$target" --case "$basic" --lanes 64 --seed 11 >/dev/null 2>&1 || true
end=$(now)
printf 'fixed cost: a dispatch on the device %.3f ms (median over the run'"'"'s %d dispatches, blit copies included; %d SDMA copies besides); a whole 64-lane run through the stack %.2f s (process start, runtime init, code object load)\n' \
    "${per_dispatch:-0}" "$(echo "$trace" | grep -c KERNEL_DISPATCH || true)" "$(echo "$trace" | grep -c 'SDMA queue .* COPY_LINEAR' || true)" "$(echo "$end - $start" | bc -l)"
