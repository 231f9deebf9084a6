#!/usr/bin/env bash
# Merges one job's per-node reports: merge.sh REPORT_DIR [EXPECTED_REPORTS]
# into REPORT_DIR/merged.json and merged.xml, and exits with the combined code
# (interrupted > 1 > 3 > 2 > 77 > 0; fewer reports than expected is 3).
# Runs as a plain script or as a Slurm job:
#   sbatch --dependency=afterany:<array jobid> ci/slurm/merge.sh reports/<array jobid> <tasks>
#SBATCH --job-name=xad-harness-merge
#SBATCH --ntasks=1
#SBATCH --time=00:05:00
#SBATCH --output=xad-harness-merge-%j.out
set -euo pipefail
dir="${1:?usage: merge.sh REPORT_DIR [EXPECTED_REPORTS]}"
expect="${2:-}"
home="${XAD_HOME:-${SLURM_SUBMIT_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}}"
harness="${XAD_HARNESS:-}"
if [ -z "$harness" ]; then
  if [ -x "$home/target/release/xad-harness" ]; then
    harness="$home/target/release/xad-harness"
  else
    harness="$(command -v xad-harness || true)"
  fi
fi
[ -n "$harness" ] || { echo "merge.sh: no xad-harness binary (set XAD_HARNESS)" >&2; exit 3; }
shopt -s nullglob
json=()
xml=()
for f in "$dir"/*.json; do [ "${f##*/}" = merged.json ] || json+=("$f"); done
for f in "$dir"/*.xml; do [ "${f##*/}" = merged.xml ] || xml+=("$f"); done
if [ ${#json[@]} -eq 0 ]; then
  echo "merge.sh: no reports in $dir${expect:+ (expected $expect)}" >&2
  exit 3
fi
args=(merge --json "$dir/merged.json")
if [ -n "$expect" ]; then args+=(--expect "$expect"); fi
args+=("${json[@]}")
if [ ${#xml[@]} -gt 0 ]; then args+=(--junit "$dir/merged.xml" --junit-in "${xml[@]}"); fi
exec "$harness" "${args[@]}"
