#!/bin/bash
# A stand-in for the sim binary that fails once: the first time it runs
# as array task FAULT_TASK (no marker file FAULT_MARK yet) it starts the
# real sim (FAULT_SIM), waits until that has written a point of its shard
# (a sweep) or has run for 1 s (a compare), kills it with SIGKILL and
# exits 1; every other time it runs the real sim. bench/slurm/test.sh
# passes it as SIM to the examples' task scripts.
set -euo pipefail
real=${FAULT_SIM:?set FAULT_SIM to the sim binary}
if [ "${SLURM_ARRAY_TASK_ID:-}" != "${FAULT_TASK:?}" ] || [ -e "${FAULT_MARK:?}" ]; then
  exec "$real" "$@"
fi
touch "$FAULT_MARK"
"$real" "$@" &
pid=$!
points=${OUT:?}/shard-$((SLURM_ARRAY_TASK_ID - ${SLURM_ARRAY_TASK_MIN:-0}))/points
for ((i = 0; i < 300; i++)); do
  kill -0 "$pid" 2>/dev/null || break
  if [ "$1" = sweep ]; then
    [ -n "$(ls -A "$points" 2>/dev/null)" ] && break
  elif [ "$i" -ge 10 ]; then
    break
  fi
  sleep 0.1
done
kill -KILL "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
echo "fault-once.sh: injected fault: killed sim in task $SLURM_ARRAY_TASK_ID" >&2
exit 1
