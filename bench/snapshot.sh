#!/usr/bin/env bash
# Output snapshot for refactorings: runs a sim binary over the embedded
# scenarios (compare and run per policy, seeds 1-3, with reports), --seeds,
# trace gen/stats and a trace replay, into one directory; a second call with
# --against compares two snapshots, ignoring only the lines that name the
# output directory (and the lock files sim leaves beside each --out). "IDENTICAL" means the refactoring changed no output.
#
#   go build -o /tmp/sim-before ./cmd/sim     # on the commit before
#   bash bench/snapshot.sh /tmp/sim-before /tmp/snap-before
#   go build -o /tmp/sim-after ./cmd/sim      # on the change
#   bash bench/snapshot.sh /tmp/sim-after /tmp/snap-after --against /tmp/snap-before
set -euo pipefail
BIN=$1 OUT=$2
cd "$(dirname "$0")/.."
rm -rf "$OUT" && mkdir -p "$OUT"
for sc in default light-load azure-production; do
  for s in 1 2 3; do
    "$BIN" compare --scenario $sc --seed $s --out "$OUT/$sc-$s" --report > "$OUT/$sc-$s.stdout" 2>&1
    for p in fixed-lane scheduler; do
      "$BIN" run --scenario $sc --policy $p --seed $s --out "$OUT/run-$sc-$p-$s" > "$OUT/run-$sc-$p-$s.stdout" 2>&1
    done
  done
done
"$BIN" compare --scenario light-load --seed 4 --seeds 3 --out "$OUT/seeds" > "$OUT/seeds.stdout" 2>&1
"$BIN" trace gen --scenario light-load --seed 7 --out "$OUT/jobs.jsonl" >/dev/null 2>&1
"$BIN" trace gen --scenario light-load --seed 7 --format csv --out "$OUT/jobs.csv" >/dev/null 2>&1
"$BIN" trace stats --scenario light-load "$OUT/jobs.jsonl" > "$OUT/stats.txt" 2>&1
"$BIN" compare --scenario light-load --trace "$OUT/jobs.jsonl" --seed 7 --out "$OUT/replayed" > "$OUT/replayed.stdout" 2>&1
if [ "${3:-}" = --against ]; then
  diff -r -x '.*.lock' -I 'output directory' -I '^wrote ' -I "$OUT" -I "$4" "$4" "$OUT" && echo "IDENTICAL to $4"
fi
