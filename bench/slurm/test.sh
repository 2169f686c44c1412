#!/usr/bin/env bash
# CI on a real Slurm: starts a one-node cluster (bench/slurm/cluster.sh),
# builds sim, and submits the examples as a user does
# (examples/slurm-submit.sh, which submits examples/slurm-sweep.sh or
# examples/slurm-compare.sh as a job array and examples/slurm-merge.sh as a
# job depending on it with afterok). Checks, with diff -r against the
# unsharded runs:
#   1. the sweep examples/sweep-small.yaml as 4 array tasks, task 1 killed
#      once mid-shard (bench/slurm/fault-once.sh) and requeued by its task
#      script: the rerun resumes, the merge equals the unsharded sweep;
#   2. compare --scenario default --seeds 4 as 2 array tasks, task 0
#      killed once and requeued: the merge equals the unsharded compare;
#   3. a sweep array whose task 2 is cancelled before it runs: the
#      dependent merge is cancelled, and the merge run anyway fails naming
#      shard 2/4;
#   4. cluster.sh refuses a taken port and a user who is not root.
# Needs root (installs slurm-wlm and munge if missing). Every wait is
# bounded (SLURM_TEST_TIMEOUT seconds per wait, default 240). The work
# folder is removed on success and kept on failure; SLURM_TEST_KEEP=1
# keeps it always. About a minute on 2 cores.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
bound=${SLURM_TEST_TIMEOUT:-240}
work=$(mktemp -d "${TMPDIR:-/tmp}/slurm-test.XXXXXX")
state=$work/cluster
ok=0
cleanup() {
  bash "$repo/bench/slurm/cluster.sh" stop "$state" 2>/dev/null || true
  if [ $ok = 1 ] && [ "${SLURM_TEST_KEEP:-0}" != 1 ]; then rm -rf "$work"; else echo "slurm test: work folder kept: $work" >&2; fi
}
trap cleanup EXIT
fail() { echo "slurm test: FAIL: $*" >&2; exit 1; }
step() { echo "slurm test: $*" >&2; }

bash bench/slurm/cluster.sh start "$state"
export SLURM_CONF=$state/slurm.conf
mkdir -p "$work/bin"
go build -o "$work/bin/sim" ./cmd/sim
sim=$work/bin/sim

# job_field JOB FIELD: a field of scontrol show job (first record).
job_field() { { scontrol show job -o "$1" 2>/dev/null || true; } | head -1 | tr ' ' '\n' | sed -n "s/^$2=//p"; }

# wait_done JOB...: until none of the jobs is pending, running or being
# requeued, at most $bound seconds; on timeout the jobs are cancelled.
wait_done() {
  local t0=$SECONDS left
  while :; do
    left=$(squeue -h -j "$(IFS=,; echo "$*")" -o '%i %T' 2>/dev/null || true)
    [ -z "$left" ] && return 0
    if [ $((SECONDS - t0)) -ge "$bound" ]; then
      scancel "$@" 2>/dev/null || true
      fail "jobs $* not done after ${bound}s: $(echo "$left" | tr '\n' ';')"
    fi
    sleep 0.5
  done
}

same_tree() { # same_tree WANT GOT WHAT
  [ -n "$(ls -A "$1")" ] || fail "$3: $1 is empty"
  diff -r "$1" "$2" >"$work/diff.txt" 2>&1 || fail "$3: $2 differs from the unsharded run $1: $(head -c 2000 "$work/diff.txt")"
  step "$3: $2 is byte-identical to the unsharded run ($(find "$2" -type f | wc -l) files)"
}

# 1. The sweep: 4 tasks, task 1 fails once.
step "unsharded references"
"$sim" sweep --out "$work/ref/sweep" examples/sweep-small.yaml 2>"$work/ref-sweep.log"
"$sim" compare --scenario default --seeds 4 --out "$work/ref/compare" >/dev/null 2>"$work/ref-compare.log"

t0=$SECONDS
read -r jid mid < <(SIM="$repo/bench/slurm/fault-once.sh" FAULT_SIM="$sim" FAULT_TASK=1 FAULT_MARK="$work/fault-sweep" \
  SWEEP=examples/sweep-small.yaml OUT="$work/sweep" SHARDS=4 SLURM_LOGS="$work/logs" bash examples/slurm-submit.sh sweep)
wait_done "$jid" "$mid"
step "sweep: array $jid and merge $mid done in $((SECONDS - t0)) s"
[ -e "$work/fault-sweep" ] || fail "sweep: the fault was not injected (no $work/fault-sweep)"
for i in 0 1 2 3; do
  st=$(job_field "${jid}_$i" JobState)
  [ "$st" = COMPLETED ] || fail "sweep: task $i is $st, want COMPLETED (log: $(cat "$work/logs/sim-sweep-${jid}_$i.out" 2>&1 | tail -5))"
done
[ "$(job_field "${jid}_1" Restarts)" = 1 ] || fail "sweep: task 1 restarted $(job_field "${jid}_1" Restarts) times, want 1"
[ "$(job_field "${jid}_0" Restarts)" = 0 ] || fail "sweep: task 0 restarted, want only task 1"
grep -q 'already done' "$work/logs/sim-sweep-${jid}_1.out" || fail "sweep: the rerun of task 1 did not resume its shard: $(cat "$work/logs/sim-sweep-${jid}_1.out")"
grep -Eo 'shard 1/4: [0-9]+ points, [1-9][0-9]* already done' "$work/logs/sim-sweep-${jid}_1.out" >/dev/null || fail "sweep: the rerun of task 1 found no point already done"
[ "$(job_field "$mid" JobState)" = COMPLETED ] || fail "sweep: merge job $mid is $(job_field "$mid" JobState): $(cat "$work/logs/sim-merge-$mid.out")"
same_tree "$work/ref/sweep" "$work/sweep/merged" "sweep, task 1 killed and requeued"

# 2. compare --seeds 4: 2 tasks, task 0 (the first seed's) fails once.
t0=$SECONDS
read -r jid mid < <(SIM="$repo/bench/slurm/fault-once.sh" FAULT_SIM="$sim" FAULT_TASK=0 FAULT_MARK="$work/fault-compare" \
  SCENARIO=default SEEDS=4 OUT="$work/compare" SHARDS=2 SLURM_LOGS="$work/logs" bash examples/slurm-submit.sh compare)
wait_done "$jid" "$mid"
step "compare: array $jid and merge $mid done in $((SECONDS - t0)) s"
[ -e "$work/fault-compare" ] || fail "compare: the fault was not injected"
for i in 0 1; do
  st=$(job_field "${jid}_$i" JobState)
  [ "$st" = COMPLETED ] || fail "compare: task $i is $st, want COMPLETED (log: $(tail -5 "$work/logs/sim-compare-${jid}_$i.out" 2>&1))"
done
[ "$(job_field "${jid}_0" Restarts)" = 1 ] || fail "compare: task 0 restarted $(job_field "${jid}_0" Restarts) times, want 1"
[ "$(job_field "$mid" JobState)" = COMPLETED ] || fail "compare: merge job $mid is $(job_field "$mid" JobState): $(cat "$work/logs/sim-merge-$mid.out")"
same_tree "$work/ref/compare" "$work/compare/merged" "compare --seeds 4, task 0 killed and requeued"

# 3. A task that never runs: the merge names its shard.
t0=$SECONDS
read -r jid mid < <(SIM="$sim" SWEEP=examples/sweep-small.yaml OUT="$work/missing" SHARDS=4 THROTTLE=1 \
  SLURM_LOGS="$work/logs" bash examples/slurm-submit.sh sweep)
scancel "${jid}_2"
wait_done "$jid" "$mid"
for i in 0 1 3; do
  st=$(job_field "${jid}_$i" JobState)
  [ "$st" = COMPLETED ] || fail "missing shard: task $i is $st, want COMPLETED"
done
[ ! -e "$work/missing/shard-2" ] && [ ! -e "$work/logs/sim-sweep-${jid}_2.out" ] || fail "missing shard: task 2 ran (it has $work/missing/shard-2 or a log)"
st=$(job_field "$mid" JobState)
[ "$st" = CANCELLED ] || fail "missing shard: the dependent merge is $st, want CANCELLED (afterok with a task cancelled)"
mid=$(OUT="$work/missing" SIM="$sim" sbatch --parsable --output="$work/logs/merge-anyway-%j.out" examples/slurm-merge.sh)
wait_done "$mid"
st=$(job_field "$mid" JobState)
[ "$st" = FAILED ] || fail "missing shard: the merge run without shard 2 is $st, want FAILED"
grep -q 'shard 2/4 did not run' "$work/logs/merge-anyway-$mid.out" || fail "missing shard: the merge's error does not name shard 2/4: $(cat "$work/logs/merge-anyway-$mid.out")"
step "missing shard: merge failed with: $(cat "$work/logs/merge-anyway-$mid.out") ($((SECONDS - t0)) s)"

# 4. cluster.sh refuses what it cannot do.
port=$(sed -n 's/^SlurmctldPort=//p' "$SLURM_CONF")
if out=$(SLURM_CI_CTLD_PORT=$port bash bench/slurm/cluster.sh start "$work/second" 2>&1); then
  bash bench/slurm/cluster.sh stop "$work/second" || true
  fail "cluster.sh started a second cluster on the taken port $port"
fi
echo "$out" | grep -q "port $port (SlurmctldPort) is taken" || fail "cluster.sh on a taken port said: $out"

if out=$(setpriv --reuid=65534 --regid=65534 --clear-groups bash bench/slurm/cluster.sh start "$work/nobody/state" 2>&1); then
  fail "cluster.sh started as a user who is not root"
fi
echo "$out" | grep -q "must run as root" || fail "cluster.sh as nobody said: $out"
step "cluster.sh refused a taken port and a user who is not root"
ok=1
step "PASS"
