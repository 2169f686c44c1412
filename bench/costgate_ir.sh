#!/usr/bin/env bash
# The instruction-count cost gate: each item's instructions (valgrind
# --tool=callgrind, GOMAXPROCS=1) as a ratio to the reference heap loop's,
# both less a run that does neither (the process, the flags, the draws of
# the reference), against the best ratio measured so far
# (bench/costgate_ir.tsv) plus a margin. Instruction counts do not move
# with the load of a shared machine: the same binary repeats within ~1%
# (TestCostGate's CPU-time ratios move by tens of percent here), so the
# margin can be 5% and a build 10% slower fails.
#
#   bash bench/costgate_ir.sh            # the gate (a few minutes on 2 cores)
#   bash bench/costgate_ir.sh --slow     # a build that runs ~10% more
#                                        # instructions per event (tag
#                                        # costgate_slow, SIM_COSTGATE_SPIN
#                                        # calibrated here): passes only if
#                                        # the gate FAILS on it
#   bash bench/costgate_ir.sh --ratchet  # the gate, then lowers a best in
#                                        # costgate_ir.tsv that this run beat
#                                        # (never raises one) and rewrites
#                                        # bench/README.md's table
#
# Environment: COSTGATE_IR_MARGIN (default 0.05), COSTGATE_IR_SLOW_PCT
# (default 10). Needs valgrind (apt-get install -y valgrind).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=gate
case "${1:-}" in
  "") ;;
  --slow) mode=slow ;;
  --ratchet) mode=ratchet ;;
  *) echo "usage: costgate_ir.sh [--slow|--ratchet]" >&2; exit 2 ;;
esac
command -v valgrind >/dev/null || { echo "costgate_ir.sh: valgrind is not installed (apt-get install -y valgrind)" >&2; exit 2; }
margin=${COSTGATE_IR_MARGIN:-0.05}
slowpct=${COSTGATE_IR_SLOW_PCT:-10}
table=bench/costgate_ir.tsv
bin=$(mktemp -d "${TMPDIR:-/tmp}/costgate_ir.XXXXXX")
trap 'rm -rf "$bin"' EXIT
tags=()
[ $mode = slow ] && tags=(-tags costgate_slow)
go test -c "${tags[@]}" -pgo="$PWD/cmd/sim/default.pgo" -o "$bin/sim.test" ./sim/

# ir BENCH [ENV...]: the instructions of one run of a benchmark (1x).
# asyncpreemptoff: callgrind 3.19 aborts on Go's preemption signal;
# cpu.rdtscp=off: it does not decode RDTSCP; gcstoptheworld=1: the
# concurrent GC's background work is paced by the clock, so its
# instructions moved ~6% with the machine's load (±0.1% without it).
# A run that gives no count, or whose benchmark did not pass (callgrind
# counts a run that failed early too, as if it were cheap), stops the
# script with the run's last lines.
ir() {
  local b=$1 out
  shift
  out=$(cd sim && env "$@" GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off,gcstoptheworld=1 \
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin/sim.test" \
    -test.run '^$' -test.bench "$b" -test.benchtime 1x -scenario ../bench/costgate-world.yaml -heap-peaks=false 2>&1) || true
  { grep -qx PASS <<<"$out" && awk '/I *refs:/ { gsub(",", "", $NF); print $NF; found = 1 } END { if (!found) exit 1 }' <<<"$out"; } ||
    { printf 'costgate_ir.sh: no instruction count of a passing run of %s; its last lines:\n' "$([ "$b" = '^$' ] && echo 'the run of no benchmark' || echo "$b")" >&2; tail -n 15 <<<"$out" >&2; return 1; }
}

# The items: the whole lab on M/M/8 (BenchmarkLabMMc/lab, fixed-lane) and
# a frozen copy of the default scenario (bench/costgate-world.yaml, read by
# BenchmarkWorld's -scenario) cut to 1 h under each policy, so retuning an
# embedded scenario does not move the bounds.
items=("LabMMc/lab" "World/fixed-lane" "World/scheduler")
bench_of() { case $1 in LabMMc/*) echo "^BenchmarkLabMMc/${1#*/}\$" ;; World/*) echo "^BenchmarkWorld/${1#*/}\$" ;; esac; }

measure() { # env...: prints "item ratio" lines
  local empty ref x
  empty=$(ir '^$' "$@")
  ref=$(ir '^BenchmarkLabMMc/reference$' "$@")
  for it in "${items[@]}"; do
    x=$(ir "$(bench_of "$it")" "$@")
    awk -v it="$it" -v x="$x" -v r="$ref" -v e="$empty" 'BEGIN { printf "%s %.4f %d\n", it, (x - e) / (r - e), x - e }'
  done
}

spin=()
if [ $mode = slow ]; then
  # Calibrate the spin: instructions a lab event costs without it, and
  # what 64 iterations of the spin add per event.
  base=$(ir '^BenchmarkLabMMc/lab$' SIM_COSTGATE_SPIN=0)
  with=$(ir '^BenchmarkLabMMc/lab$' SIM_COSTGATE_SPIN=64)
  n=$(awk -v b="$base" -v w="$with" -v p="$slowpct" 'BEGIN { printf "%d", 64 * p / 100 * b / (w - b) + 0.5 }')
  echo "costgate_ir.sh --slow: SIM_COSTGATE_SPIN=$n makes the lab ~${slowpct}% more instructions"
  spin=(SIM_COSTGATE_SPIN=$n)
else
  spin=(SIM_COSTGATE_SPIN=0)
fi
measure "${spin[@]}" >"$bin/ratios"

fail=0
while read -r it ratio instr; do
  read -r best goal < <(awk -v it="$it" '$1 == it { print $2, $3 }' "$table")
  bound=$(awk -v b="$best" -v m="$margin" 'BEGIN { printf "%.4f", b * (1 + m) }')
  over=$(awk -v r="$ratio" -v b="$bound" 'BEGIN { print (r > b) ? 1 : 0 }')
  printf 'costgate_ir %-16s ratio %8.3f  best %8.3f  bound %8.3f  goal %s  (%d instructions)\n' "$it" "$ratio" "$best" "$bound" "$goal" "$instr"
  if [ "$over" = 1 ]; then
    echo "cost gate: $it costs ${ratio}x the reference loop's instructions, above its bound $bound (best ${best}x + $(awk -v m="$margin" 'BEGIN { print m * 100 }')%)" >&2
    fail=1
  fi
done <"$bin/ratios"

if [ $mode = slow ]; then
  if [ $fail = 0 ]; then
    echo "costgate_ir.sh --slow: FAIL: the gate passed a build with ${slowpct}% more instructions per event" >&2
    exit 1
  fi
  echo "costgate_ir.sh --slow: PASS: the gate failed on the slowed build"
  exit 0
fi
[ $fail = 0 ] || { echo "costgate_ir.sh: FAIL" >&2; exit 1; }
echo "costgate_ir.sh: PASS"
if [ $mode = ratchet ]; then
  awk 'NR == FNR { r[$1] = $2; next } /^#/ || !($1 in r) { print; next } { b = $2; if (r[$1] < b) b = r[$1]; printf "%s\t%.4f\t%s\n", $1, b, $3 }' \
    "$bin/ratios" "$table" >"$bin/table" && cp "$bin/table" "$table"
  bash bench/readme_table.sh "$bin/ratios"
fi
