#!/usr/bin/env bash
# Two sim binaries side by side: N runs of each on one scenario and policy,
# printing each pair's CPU seconds and their ratio (new ÷ old), then the
# median ratio. Absolute times on a shared machine drift; runs close in time
# see the same drift, so the ratio is what to read.
#
# By default the two runs of a pair go one after the other (old first).
# TOGETHER=1 starts them at the same moment, one per core: both then see
# the same machine for their whole length, at the cost of sharing the
# memory bus (absolute CPU reads a little higher). Either way, read the
# median of many pairs: bench/README.md gives the spread of a binary
# against itself.
#
#   git worktree add /tmp/old <commit> && (cd /tmp/old && go build -o /tmp/sim-old ./cmd/sim)
#   go build -o /tmp/sim-new ./cmd/sim
#   [TOGETHER=1] bash bench/side.sh /tmp/sim-old /tmp/sim-new [SCENARIO [POLICY [N]]]
set -euo pipefail
OLD=$1 NEW=$2 SC=${3:-default} POL=${4:-scheduler} N=${5:-3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# run BIN NAME: one run in the background (its pid in $pid); cpu PID NAME
# waits for it and sets $c to its CPU seconds (user + system).
run() { /usr/bin/time -f "%U %S" "$1" run --scenario "$SC" --policy "$POL" --out "$out/$2" >/dev/null 2>"$out/$2.t" &
	pid=$!; }
cpu() { wait "$1" || { cat "$out/$2.t" >&2; exit 1; }
	c=$(tail -1 "$out/$2.t" | awk '{ print $1 + $2 }'); }
echo "scenario $SC, policy $POL$([ "${TOGETHER:-0}" = 1 ] && echo ", pairs run together"): CPU s old / new (new ÷ old)"
for i in $(seq "$N"); do
	if [ "${TOGETHER:-0}" = 1 ]; then
		run "$OLD" old; po=$pid; run "$NEW" new; pn=$pid
		cpu "$po" old; o=$c; cpu "$pn" new; n=$c
	else
		run "$OLD" old; cpu "$pid" old; o=$c
		run "$NEW" new; cpu "$pid" new; n=$c
	fi
	awk -v o="$o" -v n="$n" -v i="$i" 'BEGIN { printf "  run %d: %.2f / %.2f (%.2fx)\n", i, o, n, n / o }' | tee -a "$out/ratios"
done
sed -E 's/.*\(([0-9.]+)x\)/\1/' "$out/ratios" | sort -n | awk '{ r[NR] = $1 } END { m = (NR % 2) ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2; printf "  median %.3fx over %d pairs\n", m, NR }'
