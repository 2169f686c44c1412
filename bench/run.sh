#!/usr/bin/env bash
# Benchmarks in one run: the engine against a minimal heap loop, the whole lab
# on M/M/c against the same loop and, if SimPy 2 is installed
# (apt-get install -y python3-simpy), against SimPy on the same M/M/c.
# See bench/README.md. Takes about a minute on 2 cores.
#
# Environment: SCENARIO (default "default") and SCENARIO_DURATION (default 1h,
# 0 = whole) for the per-policy scenario benchmark; LAB_RUNS (default 5) whole
# M/M/c runs per lab benchmark line; ROUNDS (default 5) rounds of the M/M/c
# lines, each the loop, the lab and SimPy back to back, whose per-round
# ratios are summed up by their median; SKIP_ENGINE=1 skips the engine lines.
set -euo pipefail
cd "$(dirname "$0")/.."

CUSTOMERS=100000 # labMMcCustomers in sim/lab_bench_test.go
C=8 RHO=0.9      # engMMcServers, engMMcRho in sim/engine_bench_test.go
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# The same profile-guided build as cmd/sim (bench/pgo.sh), so the lines measure the code users run.
go test -c -pgo="$PWD/cmd/sim/default.pgo" -o "$out.test" ./sim/ && trap 'rm -f "$out" "$out.test"' EXIT
run() { (cd sim && "$out.test" -test.run '^$' -test.benchmem "$@") | grep -E '^Benchmark' | tee -a "$out"; }

if [ "${SKIP_ENGINE:-0}" != 1 ]; then
	echo "== engine against the reference heap loop (x-ref = engine / reference, per event)"
	run -test.bench '^Benchmark(Hold|MMc)$' -test.benchtime 1000000x
fi
# The M/M/c lines in rounds: each round runs the loop, the lab and SimPy
# back to back, so its two ratios are measured side by side, and the machine's
# drift over the minute moves a round, not the summary (the median of the
# rounds, printed with their range).
py=""
for p in python3 /usr/bin/python3; do
	if "$p" -c 'import SimPy' 2>/dev/null; then
		py=$p
		break
	fi
done
# ns/customer of a LabMMc sub-benchmark in the output file $2.
perCustomer() { awk -v name="^BenchmarkLabMMc/$1(-[0-9]+)?\$" '$1 ~ name { for (i = 2; i < NF; i++) if ($(i+1) == "ns/customer") print $i }' "$2"; }
ratios=$(mktemp)
trap 'rm -f "$out" "$out.test" "$out.round" "$ratios"' EXIT
for r in $(seq 1 "${ROUNDS:-5}"); do
	echo "== round $r: whole lab on M/M/$C, rho=$RHO, $CUSTOMERS customers per run (x-ref = lab / reference, per customer)"
	: >"$out.round"
	(cd sim && "$out.test" -test.run '^$' -test.benchmem -test.bench '^BenchmarkLabMMc$' -test.benchtime "${LAB_RUNS:-5}x") |
		grep -E '^Benchmark' | tee -a "$out" "$out.round"
	simpy=NA
	if [ -n "$py" ]; then
		line=$("$py" bench/mmc_simpy.py "$CUSTOMERS" "$C" "$RHO" 1)
		echo "SimPy 2: $line"
		simpy=$(echo "$line" | sed -E 's/.* ([0-9.]+) ns\/customer.*/\1/')
	fi
	echo "$(perCustomer reference "$out.round") $(perCustomer lab "$out.round") $simpy" >>"$ratios"
done
rm -f "$out.round"
echo "== scenario ${SCENARIO:-default} (cut to ${SCENARIO_DURATION:-1h}) per policy"
run -test.bench '^BenchmarkWorld$' -test.benchtime 1x -scenario "${SCENARIO:-default}" -scenario-duration "${SCENARIO_DURATION:-1h}"

# The median and range of column $1 of the rounds' ratios ("NA" if none).
summary() { awk -v c="$1" '{print $c}' "$ratios" | grep -v NA | sort -g | awk '{v[NR] = $1} END {if (NR == 0) {print "NA"; exit} m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.1f (%.1f-%.1f over %d rounds)", m, v[1], v[NR], NR}'; }
awk '{ print $1, $2 / $1, ($3 == "NA" ? "NA" : $3 / $2) }' "$ratios" >"$ratios.r"
mv "$ratios.r" "$ratios"

echo "== per customer on M/M/$C, rho=$RHO: median of the rounds (range)"
printf '  reference loop %s ns\n' "$(summary 1)"
printf '  lab / reference = %s  (goal <= 8, stretch 5)\n' "$(summary 2)"
if [ -n "$py" ]; then
	printf '  SimPy / lab     = %s  (target >= 20)\n' "$(summary 3)"
else
	echo "  SimPy 2 not installed (apt-get install -y python3-simpy): no SimPy ratio"
fi
