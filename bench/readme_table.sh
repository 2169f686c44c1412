#!/usr/bin/env bash
# Rewrites bench/README.md's instruction-count table (between the
# costgate-ir markers) from a ratios file of bench/costgate_ir.sh ("item
# ratio instructions" lines) and bench/costgate_ir.tsv (the bests and
# goals). costgate_ir.sh --ratchet calls it; do not edit the table by hand.
set -euo pipefail
cd "$(dirname "$0")/.."
ratios=$1
new=$(mktemp)
trap 'rm -f "$new"' EXIT
{
  echo "Measured $(date -u +%F) at commit $(git rev-parse --short HEAD) (\`bash bench/costgate_ir.sh --ratchet\`; callgrind, GOMAXPROCS=1):"
  echo
  echo "| item | instructions ÷ reference loop's | best so far (the gate's bound is this + 5%) | goal | instructions of the run |"
  echo "|---|---|---|---|---|"
  awk 'NR == FNR { if ($1 !~ /^#/) { best[$1] = $2; goal[$1] = $3 }; next }
       { printf "| %s | %.2f | %.2f | %s | %d |\n", $1, $2, best[$1], goal[$1], $3 }' bench/costgate_ir.tsv "$ratios"
} >"$new"
bash bench/readme_block.sh "costgate-ir table" "$new"
