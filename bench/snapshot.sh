#!/usr/bin/env bash
# Output snapshot for refactorings: runs a sim binary over the embedded
# scenarios (compare and run per policy, seeds 1-3, with reports; every other
# scenario with spans and all its variants), --seeds,
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
# Every other embedded scenario (studio-week aside: minutes), its variants
# all in one compare, and the spans (--otlp: the tracer's output, kept as
# its hash) of the smaller ones.
"$BIN" scenarios | tail -n +2 | awk -F'  +' '$1 != "studio-week" { print $1 "|" $NF }' | while IFS='|' read -r sc vs; do
  spans=()
  case $sc in delivery | incident-0214 | controllers) spans=(--otlp "$OUT/all-$sc.otlp") ;; esac # the others write GBs
  "$BIN" compare --scenario "$sc" --seed 1 --out "$OUT/all-$sc" "${spans[@]}" > "$OUT/all-$sc.stdout" 2>&1
  if [ ${#spans[@]} -gt 0 ]; then (cd "$OUT" && sha256sum "all-$sc.otlp" > "all-$sc.otlp.sha256" && rm "all-$sc.otlp"); fi
  if [ "$vs" != - ]; then
    args=()
    IFS=', ' read -r -a names <<< "$vs"
    for v in "${names[@]}"; do args+=(--variant "$v"); done
    "$BIN" compare --scenario "$sc" --seed 2 "${args[@]}" --out "$OUT/variants-$sc" > "$OUT/variants-$sc.stdout" 2>&1
  fi
done
"$BIN" compare --scenario light-load --seed 4 --seeds 3 --out "$OUT/seeds" > "$OUT/seeds.stdout" 2>&1
"$BIN" trace gen --scenario light-load --seed 7 --out "$OUT/jobs.jsonl" >/dev/null 2>&1
"$BIN" trace gen --scenario light-load --seed 7 --format csv --out "$OUT/jobs.csv" >/dev/null 2>&1
"$BIN" trace stats --scenario light-load "$OUT/jobs.jsonl" > "$OUT/stats.txt" 2>&1
"$BIN" compare --scenario light-load --trace "$OUT/jobs.jsonl" --seed 7 --out "$OUT/replayed" > "$OUT/replayed.stdout" 2>&1
if [ "${3:-}" = --against ]; then
  diff -r -x '.*.lock' -I 'output directory' -I 'tool version' -I '^wrote ' -I "$OUT" -I "$4" "$4" "$OUT" && echo "IDENTICAL to $4"
fi
