#!/usr/bin/env bash
# Two sim binaries side by side: alternate N runs of each on one scenario and
# policy and print each pair's CPU seconds and their ratio (new ÷ old).
# Absolute times on a shared machine drift; alternating runs see the same
# drift, so the ratio is what to read.
#
#   git worktree add /tmp/old <commit> && (cd /tmp/old && go build -o /tmp/sim-old ./cmd/sim)
#   go build -o /tmp/sim-new ./cmd/sim
#   bash bench/side.sh /tmp/sim-old /tmp/sim-new [SCENARIO [POLICY [N]]]
set -euo pipefail
OLD=$1 NEW=$2 SC=${3:-default} POL=${4:-scheduler} N=${5:-3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cpu() { /usr/bin/time -f "%U %S" "$1" run --scenario "$SC" --policy "$POL" --out "$out/o" >/dev/null 2>"$out/t" || { cat "$out/t" >&2; exit 1; }
	tail -1 "$out/t" | awk '{ print $1 + $2 }'; }
echo "scenario $SC, policy $POL: CPU s old / new (new ÷ old)"
for i in $(seq "$N"); do
	o=$(cpu "$OLD") n=$(cpu "$NEW")
	awk -v o="$o" -v n="$n" -v i="$i" 'BEGIN { printf "  run %d: %.2f / %.2f (%.2fx)\n", i, o, n, n / o }'
done
