#!/bin/bash
# A sweep as a Slurm job array: 4 tasks, each one shard (sim reads
# SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT and SLURM_ARRAY_TASK_MIN),
# writing out/sweep/shard-I. Then, once all are done:
#   sbatch --dependency=afterok:JOBID --wrap 'sim merge --out out/sweep/merged out/sweep/shard-*'
# Run from the repository root: sbatch examples/slurm-sweep.sh
#SBATCH --job-name=sim-sweep
#SBATCH --array=0-3
#SBATCH --cpus-per-task=2
#SBATCH --mem=2G
#SBATCH --time=00:30:00
set -euo pipefail
SIM=${SIM:-sim}
exec "$SIM" sweep --out out/sweep examples/sweep-depth-factor.yaml
