# Sourced by the ci/ scripts: where the HIP headers and library are.
# hip-sys finds ROCm at /opt/rocm by itself; Debian's packages live under /usr.
if [ -z "${HIP_PATH:-}" ]; then
  if [ -f "${ROCM_PATH:-/opt/rocm}/include/hip/hip_runtime_api.h" ]; then
    export HIP_PATH="${ROCM_PATH:-/opt/rocm}"
  else
    export HIP_PATH=/usr
  fi
fi
[ -d "$HOME/.cargo/bin" ] && export PATH="$HOME/.cargo/bin:$PATH"
true
