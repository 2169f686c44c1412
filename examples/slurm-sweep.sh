#!/bin/bash
# One task of a sweep run as a Slurm job array: task I of N runs shard I/N
# (sim reads SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT and
# SLURM_ARRAY_TASK_MIN) into $OUT/shard-I. Submit it with its merge:
#   bash examples/slurm-submit.sh sweep
# (or by hand: mkdir -p out/slurm; sbatch examples/slurm-sweep.sh, then
#  OUT=out/sweep sbatch --dependency=afterok:JOBID examples/slurm-merge.sh).
# A task whose sim fails requeues itself (up to SIM_REQUEUES times, default
# 2); the rerun resumes its shard, skipping the points already written.
# Run from the repository root. Environment (sbatch passes the submitter's):
# SIM (the binary, default sim on PATH), SWEEP (default
# examples/sweep-depth-factor.yaml), OUT (default out/sweep).
#SBATCH --job-name=sim-sweep
#SBATCH --array=0-3
#SBATCH --cpus-per-task=1
#SBATCH --mem=2G
#SBATCH --time=00:30:00
#SBATCH --requeue
#SBATCH --output=out/slurm/%x-%A_%a.out
set -euo pipefail
SIM=${SIM:-sim}
SWEEP=${SWEEP:-examples/sweep-depth-factor.yaml}
OUT=${OUT:-out/sweep}
# task/none does not bind CPUs: run as many simulations at once as the task was given.
export GOMAXPROCS=${SLURM_CPUS_PER_TASK:-1}
status=0
"$SIM" sweep --out "$OUT" "$SWEEP" || status=$?
if [ "$status" -ne 0 ] && [ "${SLURM_RESTART_COUNT:-0}" -lt "${SIM_REQUEUES:-2}" ]; then
  echo "slurm-sweep.sh: sim exited $status; requeueing task ${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID} (restart ${SLURM_RESTART_COUNT:-0})" >&2
  scontrol requeue "${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}"
fi
exit "$status"
