#!/usr/bin/env bash
# The current speed and memory table of bench/README.md ("Scale and
# speed"): wall time, CPU and peak resident memory of `sim compare` on each
# embedded scenario (WEEK=1 adds studio-week, several minutes), with the
# date and commit. Paste its output over the table.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/sim" ./cmd/sim
echo "Measured $(date -u +%F) at commit $(git rev-parse --short HEAD) on $(nproc) cores (\`bash bench/table.sh\`):"
echo
echo "| \`sim compare --scenario\` | wall s | CPU s | peak RSS MiB |"
echo "|---|---|---|---|"
scenarios="default light-load azure-production anthropic-quota openai-quota controllers incident-0214 delivery delivery-50k"
[ "${WEEK:-0}" = 1 ] && scenarios="$scenarios studio-week"
for sc in $scenarios; do
  /usr/bin/time -f "%e %U %S %M" -o "$bin/t" "$bin/sim" compare --scenario "$sc" --out "$bin/out-$sc" >/dev/null 2>&1
  read -r wall user sys rss <"$bin/t"
  awk -v sc="$sc" -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss" 'BEGIN { printf "| %s | %.2f | %.2f | %.0f |\n", sc, w, u + s, r / 1024 }'
done
