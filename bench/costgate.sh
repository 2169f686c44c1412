#!/usr/bin/env bash
# The cost gate: sim's TestCostGate (sim/costgate_test.go) in the
# profile-guided test build (as bench/run.sh): the whole lab on M/M/8 and
# the default scenario cut to 1 h under each policy, as CPU-time ratios to
# the reference heap loop measured beside them, each median against its
# bound. Exit 1 naming the item and its ratio when one is above its bound.
#
#   bash bench/costgate.sh          # the gate (~15 s after the build)
#   bash bench/costgate.sh --slow   # the same on a build with the tag
#                                   # costgate_slow (the event loop 25%
#                                   # slower): passes only if the gate FAILS
#
# Environment: SIM_COSTGATE_ROUNDS (default 9), SIM_COSTGATE_SLOW_PCT (how
# much slower the costgate_slow build's event loop is, default 25%).
set -euo pipefail
cd "$(dirname "$0")/.."
slow=0
case "${1:-}" in
  "") ;;
  --slow) slow=1 ;;
  *) echo "usage: costgate.sh [--slow]" >&2; exit 2 ;;
esac
bin=$(mktemp -d "${TMPDIR:-/tmp}/costgate.XXXXXX")
trap 'rm -rf "$bin"' EXIT
tags=()
[ $slow = 1 ] && tags=(-tags costgate_slow)
go test -c "${tags[@]}" -pgo="$PWD/cmd/sim/default.pgo" -o "$bin/sim.test" ./sim/
status=0
(cd sim && SIM_COSTGATE=1 timeout 300 "$bin/sim.test" -test.run '^TestCostGate$' -test.v -test.count 1) >"$bin/out" 2>&1 || status=$?
grep -E '^costgate |cost gate:' "$bin/out" || cat "$bin/out"
if [ $slow = 0 ]; then
  [ $status = 0 ] && echo "costgate.sh: PASS" || echo "costgate.sh: FAIL (exit $status)" >&2
  exit $status
fi
if [ $status = 0 ]; then
  echo "costgate.sh --slow: FAIL: the gate passed a build whose event loop is ${SIM_COSTGATE_SLOW_PCT:-25}% slower" >&2
  exit 1
fi
grep -q 'cost gate: .* above its bound' "$bin/out" || { echo "costgate.sh --slow: FAIL: the gate failed for another reason (exit $status)" >&2; exit 1; }
echo "costgate.sh --slow: PASS: the gate failed on the slowed build"
