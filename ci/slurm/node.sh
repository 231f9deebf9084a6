#!/usr/bin/env bash
# One node's run of xad-harness inside a Slurm job (called by
# xad-harness.sbatch): reports <node>.json and <node>.xml (<node>.<task>.* in a
# job array) in $XAD_REPORTS; exits with the harness's code.
set -uo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
home="${XAD_HOME:-$here}"
dir="${XAD_REPORTS:?XAD_REPORTS is not set (run through xad-harness.sbatch)}"
node="${SLURMD_NODENAME:-$(hostname -s)}"
name="$node${SLURM_ARRAY_TASK_ID:+.$SLURM_ARRAY_TASK_ID}"
harness="${XAD_HARNESS:-}"
if [ -z "$harness" ]; then
  if [ -x "$home/target/release/xad-harness" ]; then
    harness="$home/target/release/xad-harness"
  else
    harness="$(command -v xad-harness || true)"
  fi
fi
if [ -z "$harness" ] || [ ! -x "$harness" ]; then
  echo "node.sh: $name: no xad-harness binary (set XAD_HARNESS, or cargo build --release in $home)" >&2
  exit 3
fi
# With gres.conf's Flags=amd_gpu_env, Slurm sets ROCR_VISIBLE_DEVICES to the
# GPU it allocated, so device 0 is this task's GPU.
"$harness" run --backend "${XAD_BACKEND:-hip}" --json "$dir/$name.json" --junit "$dir/$name.xml" "$@"
code=$?
echo "node.sh: $name: xad-harness exit $code (reports $dir/$name.json, $dir/$name.xml)"
exit "$code"
