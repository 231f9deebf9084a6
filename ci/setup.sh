#!/usr/bin/env bash
# Installs what building and running xad-harness needs on Debian 12 or Ubuntu
# 24.04, and nothing when it is already there: an LLVM that assembles
# gfx9-gfx12 (clang/lld 19, and 22 for gfx950 where apt has it), the HIP
# runtime and headers (libamdhip64-dev), its code object manager
# (libamd-comgr2) and libclang for bindgen.
# With --tests (ci/test.sh) also what only the tests need: qemu-user,
# python3-numpy, Slurm (munge, slurmctld, slurmd, slurm-client) and chromium.
# Rust itself comes from rustup (https://rustup.rs), which this script does not run.
set -euo pipefail

# Only the test job (--tests) needs the rest: qemu-user, because
# ci/simd-paths.sh runs the input generator's SSE2, SSE4.1 and AVX2 paths under
# emulated CPUs; python3-numpy, because tests/cli/replay.rs loads every .npy of a
# dump with numpy; munge, slurmctld, slurmd and slurm-client (Debian 12: Slurm
# 22.05), because tests/cli/slurm.rs starts a one-node cluster on localhost and
# runs ci/slurm/ on it. Installing them starts no daemon where systemd is not
# running; where it is, the packages' own services use /etc/slurm and the
# default ports, which the test's cluster does not (its own configuration,
# free ports, its own munge socket); chromium, because tests/cli/html.rs opens
# the HTML reports in a real browser (headless) and reads back the DOM it built.
packages=(clang-19 lld-19 llvm-19 libclang-dev libdrm-dev)
case "${1:-}" in
  --tests) packages+=(qemu-user python3-numpy munge slurmctld slurmd slurm-client chromium) ;;
  "") ;;
  *) echo "usage: ci/setup.sh [--tests]" >&2; exit 2 ;;
esac
# Debian's HIP headers and runtime only when no ROCm installation is there: a
# ROCm runner builds against its own /opt/rocm (ci/env.sh picks that root), and
# a second HIP under /usr would only invite mixing the two.
rocm_root=""
for root in "${HIP_PATH:-}" "${ROCM_PATH:-}" /opt/rocm; do
  if [ -n "$root" ] && [ "$root" != /usr ] && [ -f "$root/include/hip/hip_runtime_api.h" ]; then
    rocm_root="$root"
    break
  fi
done
if [ -n "$rocm_root" ]; then
  echo "ci/setup.sh: using the HIP installation at $rocm_root; not installing Debian's libamdhip64-dev"
else
  # libamd-comgr2: the code object manager HIP reads metadata with; libamdhip64
  # dlopens it (no link dependency) and tests/hip/comgr_metadata.rs reads every
  # embedded code object through it, failing under CI=true when it is missing.
  packages+=(libamdhip64-dev libamd-comgr2)
fi
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
# LLVM 22 assembles gfx950 and gfx9-4-generic, which LLVM 19 does not know
# (Debian 12 has it in bookworm-security). Where apt has no clang-22 the build
# leaves those two targets out and says so; everything else still builds.
llvm22=(clang-22 lld-22 llvm-22)
missing=()
for p in "${packages[@]}" "${llvm22[@]}"; do
  installed "$p" || missing+=("$p")
done
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
if [ ${#missing[@]} -gt 0 ]; then
  $sudo apt-get update -qq
  if ! apt-cache show clang-22 >/dev/null 2>&1; then
    echo "ci/setup.sh: apt has no clang-22; gfx950 and gfx9-4-generic will not be built"
    missing=()
    for p in "${packages[@]}"; do installed "$p" || missing+=("$p"); done
  fi
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "ci/setup.sh: installing ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if ! command -v cargo >/dev/null 2>&1; then
  [ -x "$HOME/.cargo/bin/cargo" ] || { echo "ci/setup.sh: cargo not found; install Rust from https://rustup.rs" >&2; exit 3; }
fi
