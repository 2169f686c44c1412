#!/bin/bash
# The merge of a sharded sweep or compare, as a Slurm job that runs once
# every array task succeeded (submitted with --dependency=afterok:ARRAYJOB
# by examples/slurm-submit.sh): sim merge --out $OUT/merged $OUT/shard-*.
# A shard that did not run is named in the error (and the job fails).
# Environment: SIM (default sim on PATH), OUT (the array's output).
#SBATCH --job-name=sim-merge
#SBATCH --cpus-per-task=1
#SBATCH --mem=1G
#SBATCH --time=00:10:00
#SBATCH --output=out/slurm/%x-%j.out
set -euo pipefail
SIM=${SIM:-sim}
OUT=${OUT:?set OUT to the output directory of the array job}
exec "$SIM" merge --out "$OUT/merged" "$OUT"/shard-*
