#!/usr/bin/env bash
# Where one cost-gate item's instructions go, by source file: each file's
# self instructions (valgrind --tool=callgrind, GOMAXPROCS=1, as
# bench/costgate_ir.sh counts them; inlined code counts in the file it was
# written in) as a share of the run and per engine event, the largest
# first. The profile is flat when no file stands out: then a goal far
# below the run's cost needs fewer instructions everywhere, not one fix.
#
#   bash bench/areas.sh [ITEM [ROWS]]
#     ITEM: World/scheduler (default), World/fixed-lane, World/inspect, LabMMc/lab
#     ROWS: files to list (default 25)
#   bash bench/areas.sh --readme
#     the tables of World/scheduler and LabMMc/lab (12 rows each) into
#     bench/README.md between its areas markers; do not edit them by hand
#
# Needs valgrind (apt-get install -y valgrind) and callgrind_annotate.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = --readme ]; then
  new=$(mktemp)
  trap 'rm -f "$new"' EXIT
  {
    echo "Measured $(date -u +%F) (\`bash bench/areas.sh --readme\`; callgrind, GOMAXPROCS=1, the twelve largest files):"
    for it in World/scheduler LabMMc/lab; do
      echo
      bash "$0" "$it" 12
    done
  } >"$new"
  bash bench/readme_block.sh "areas table" "$new"
  exit 0
fi
item=${1:-World/scheduler}
rows=${2:-25}
case "$item" in
  World/scheduler | World/fixed-lane | World/inspect | LabMMc/lab) ;;
  *) echo "areas.sh: unknown item $item (World/scheduler, World/fixed-lane, World/inspect, LabMMc/lab)" >&2; exit 2 ;;
esac
command -v valgrind >/dev/null || { echo "areas.sh: valgrind is not installed (apt-get install -y valgrind)" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/areas.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
go test -c -pgo="$PWD/cmd/sim/default.pgo" -o "$tmp/sim.test" ./sim/
(cd sim && GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off,gcstoptheworld=1 \
  valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" "$tmp/sim.test" \
  -test.run '^$' -test.bench "^Benchmark${item}\$" -test.benchtime 1x \
  -scenario ../bench/costgate-world.yaml -heap-peaks=false >"$tmp/out" 2>&1) ||
  { cat "$tmp/out" >&2; exit 1; }
# Events of the run: events/s × ns/op (World), events/customer × customers
# (LabMMc: customers/s × ns/op).
events=$(awk '/^Benchmark/ {
    for (i = 1; i <= NF; i++) { if ($(i+1) == "ns/op") ns = $i; if ($(i+1) == "events/s") eps = $i
      if ($(i+1) == "customers/s") cps = $i; if ($(i+1) == "events/customer") epc = $i }
  } END { if (eps) printf "%.0f", eps * ns / 1e9; else printf "%.0f", cps * ns / 1e9 * epc }' "$tmp/out")
total=$(awk '/Collected :/ { print $NF }' "$tmp/out")
echo "$item: $total instructions, $events events ($(awk -v t="$total" -v e="$events" 'BEGIN { printf "%.0f", t / e }') per event); commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . || echo " with uncommitted changes")"
echo
echo "| file | instructions | share | per event |"
echo "|---|---|---|---|"
callgrind_annotate --auto=no "$tmp/cg" 2>/dev/null | awk -v total="$total" -v events="$events" -v rows="$rows" -v root="$PWD/" '
  /file:function/ { on = 1; next }
  on && /^ *[0-9,]+ \(/ {
    n = $1; gsub(",", "", n)
    f = $0; sub(/^[^)]*\)  /, "", f); sub(/:.*/, "", f)
    if (index(f, root) == 1) f = substr(f, length(root) + 1)
    else if (f ~ /\/go\/src\//) { sub(/.*\/go\/src\//, "", f); f = "go: " f }
    else if (f ~ /\/pkg\/mod\//) { sub(/.*\/pkg\/mod\//, "", f); f = "module: " f }
    s[f] += n
  }
  END { for (f in s) printf "%d\t%s\n", s[f], f }' | sort -rn | head -n "$rows" |
  awk -F'\t' -v total="$total" -v events="$events" '{ printf "| %s | %.1fM | %.1f%% | %.0f |\n", $2, $1 / 1e6, 100 * $1 / total, $1 / events }'
