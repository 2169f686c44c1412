#!/bin/bash
# Submits a sharded sweep or multi-seed compare to Slurm: the job array
# (examples/slurm-sweep.sh or examples/slurm-compare.sh) and the merge
# (examples/slurm-merge.sh) as a job that runs once every task succeeded
# (--dependency=afterok). Prints the two job IDs: ARRAY MERGE.
#   bash examples/slurm-submit.sh sweep      # $OUT/merged: sweep.csv, summary.csv, points/, sweep.json
#   bash examples/slurm-submit.sh compare    # $OUT/merged: summary.json, series.csv, batches.csv
# Run from the repository root. Environment: SHARDS (array tasks, default
# 4), THROTTLE (at most this many tasks at once, default no limit), OUT
# (default out/sweep or out/compare), SLURM_LOGS (the tasks' stdout and
# stderr, default out/slurm), SBATCH_ARGS (more sbatch options, e.g.
# --partition=P), and what the task scripts read (SIM, SWEEP, SCENARIO,
# SEEDS).
set -euo pipefail
kind=${1:?usage: slurm-submit.sh sweep|compare}
case $kind in
  sweep) task=examples/slurm-sweep.sh ;;
  compare) task=examples/slurm-compare.sh ;;
  *) echo "slurm-submit.sh: want sweep or compare, got $kind" >&2; exit 2 ;;
esac
[ -f "$task" ] || { echo "slurm-submit.sh: run from the repository root ($task not found)" >&2; exit 2; }
SHARDS=${SHARDS:-4}
export OUT=${OUT:-out/$kind}
logs=${SLURM_LOGS:-out/slurm}
mkdir -p "$logs"
array=0-$((SHARDS - 1))${THROTTLE:+%$THROTTLE}
# shellcheck disable=SC2086 # SBATCH_ARGS is a list of options
jid=$(sbatch --parsable --array="$array" --output="$logs/%x-%A_%a.out" ${SBATCH_ARGS:-} "$task")
jid=${jid%%;*}
# shellcheck disable=SC2086
mid=$(sbatch --parsable --dependency=afterok:"$jid" --kill-on-invalid-dep=yes --output="$logs/%x-%j.out" ${SBATCH_ARGS:-} examples/slurm-merge.sh)
mid=${mid%%;*}
echo "$jid $mid"
echo "slurm-submit.sh: array $jid ($SHARDS tasks of $task), merge $mid into $OUT/merged once all succeed; logs in $logs" >&2
