#!/usr/bin/env bash
# Parallel efficiency of a sweep run as a Slurm job array on this machine's
# one-node cluster (bench/slurm/cluster.sh, CPUs = nproc). The sweep is
# examples/sweep-depth-factor.yaml with SEEDS seeds (default 2: 12 points x 2
# seeds x 2 policies = 48 runs), as SHARDS array tasks (default 4) of one
# CPU each (examples/slurm-submit.sh, GOMAXPROCS=1 per task), with the
# array throttled to 1 and to 2 tasks at once; beside it the same sweep
# unsharded without Slurm at GOMAXPROCS=1 and 2. REPS rounds (default 2),
# the four runs alternated within a round. Then the per-task overhead of an
# array: NOOP tasks (default 16) of `true`, one at a time, submission to
# the last task's end, divided by NOOP. Prints, for each run, its wall
# time, CPU time (the sims', by /usr/bin/time) and the load
# average before it; every merge is checked byte-identical to the
# unsharded run.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
SEEDS=${SEEDS:-2} SHARDS=${SHARDS:-4} REPS=${REPS:-2} NOOP=${NOOP:-16}
work=$(mktemp -d "${TMPDIR:-/tmp}/slurm-eff.XXXXXX")
state=$work/cluster
trap 'bash "$repo/bench/slurm/cluster.sh" stop "$state" 2>/dev/null || true; rm -rf "$work"' EXIT
bash bench/slurm/cluster.sh start "$state"
export SLURM_CONF=$state/slurm.conf
go build -o "$work/sim" ./cmd/sim
sed "s/^seeds: .*/seeds: $SEEDS/" examples/sweep-depth-factor.yaml >"$work/sweep.yaml"

now() { date +%s.%N; }
wait_done() { # bounded: 1800 s
  local t0=$SECONDS
  while [ -n "$(squeue -h -j "$(IFS=,; echo "$*")" 2>/dev/null || true)" ]; do
    [ $((SECONDS - t0)) -lt 1800 ] || { scancel "$@"; echo "efficiency.sh: jobs $* not done in 1800 s" >&2; exit 1; }
    sleep 0.2
  done
}
# Every sim run (direct or a task's) appends its user+system CPU seconds to
# $work/cpu through /usr/bin/time.
cat >"$work/timed-sim" <<TIMED
#!/bin/sh
exec /usr/bin/time -a -o "$work/cpu" -f "%U %S" "$work/sim" "\$@"
TIMED
chmod +x "$work/timed-sim"
cpu() { awk '{s += $1 + $2} END {printf "%.1f", s}' "$work/cpu"; }
load() { cut -d' ' -f1 /proc/loadavg; }
direct() { # direct PROCS: wall s, CPU s, load average before
  rm -rf "$work/direct" "$work/cpu"
  local t0 l; t0=$(now); l=$(load)
  GOMAXPROCS=$1 "$work/timed-sim" sweep --out "$work/direct" "$work/sweep.yaml" 2>/dev/null
  printf '%.1f s wall, %s s CPU, load %s' "$(echo "$(now) - $t0" | bc)" "$(cpu)" "$l"
}
array() { # array THROTTLE: submission to the merge's end, the tasks' CPU, load
  rm -rf "$work/arr" "$work/cpu"
  local t0 jid mid l; t0=$(now); l=$(load)
  read -r jid mid < <(SIM="$work/timed-sim" SWEEP="$work/sweep.yaml" OUT="$work/arr" SHARDS=$SHARDS THROTTLE=$1 \
    SLURM_LOGS="$work/logs" bash examples/slurm-submit.sh sweep 2>/dev/null)
  wait_done "$jid" "$mid"
  local t; t=$(echo "$(now) - $t0" | bc)
  diff -r "$work/direct" "$work/arr/merged" >/dev/null || { echo "efficiency.sh: the merge differs from the unsharded run" >&2; exit 1; }
  printf '%.1f s wall, %s s CPU, load %s' "$t" "$(cpu)" "$l"
}
for r in $(seq "$REPS"); do
  echo "round $r: direct GOMAXPROCS=1: $(direct 1)"
  echo "round $r: array %1 ($SHARDS tasks): $(array 1)"
  echo "round $r: direct GOMAXPROCS=2: $(direct 2)"
  echo "round $r: array %2 ($SHARDS tasks): $(array 2)"
done
t0=$(now)
jid=$(sbatch --parsable --array=0-$((NOOP - 1))%1 --output=/dev/null --wrap true)
wait_done "${jid%%;*}"
printf 'no-op array of %d tasks one at a time: %.2f s, %.3f s per task\n' "$NOOP" "$(echo "$(now) - $t0" | bc)" "$(echo "($(now) - $t0) / $NOOP" | bc -l)"
