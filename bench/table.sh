#!/usr/bin/env bash
# The current speed and memory table of bench/README.md ("Scale and
# speed"): wall time, CPU and peak resident memory of `sim compare` on each
# embedded scenario (WEEK=1 adds studio-week, a minute or two), with the
# date and commit. --readme writes it, the week included, into
# bench/README.md between its scale-table markers (do not edit that table
# by hand); run it on an idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = --readme ]; then
  new=$(mktemp)
  trap 'rm -f "$new"' EXIT
  WEEK=1 bash "$0" | sed 's/(`bash bench\/table.sh`)/(`bash bench\/table.sh --readme`)/' >"$new"
  bash bench/readme_block.sh "scale table" "$new"
  exit 0
fi
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
