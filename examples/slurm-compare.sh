#!/bin/bash
# One task of a multi-seed compare run as a Slurm job array: task I of N
# runs the seeds of shard I/N (sim compare --seeds K reads the same array
# variables as sweep) into $OUT/shard-I. Submit it with its merge:
#   bash examples/slurm-submit.sh compare
# A task whose sim fails requeues itself (up to SIM_REQUEUES times,
# default 2) and runs its seeds again.
# Run from the repository root. Environment: SIM (default sim on PATH),
# SCENARIO (an embedded name or a file, default default), SEEDS (K,
# default 8), OUT (default out/compare).
#SBATCH --job-name=sim-compare
#SBATCH --array=0-3
#SBATCH --cpus-per-task=1
#SBATCH --mem=2G
#SBATCH --time=00:30:00
#SBATCH --requeue
#SBATCH --output=out/slurm/%x-%A_%a.out
set -euo pipefail
SIM=${SIM:-sim}
SCENARIO=${SCENARIO:-default}
SEEDS=${SEEDS:-8}
OUT=${OUT:-out/compare}
export GOMAXPROCS=${SLURM_CPUS_PER_TASK:-1}
status=0
"$SIM" compare --scenario "$SCENARIO" --seeds "$SEEDS" --out "$OUT" || status=$?
if [ "$status" -ne 0 ] && [ "${SLURM_RESTART_COUNT:-0}" -lt "${SIM_REQUEUES:-2}" ]; then
  echo "slurm-compare.sh: sim exited $status; requeueing task ${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID} (restart ${SLURM_RESTART_COUNT:-0})" >&2
  scontrol requeue "${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}"
fi
exit "$status"
