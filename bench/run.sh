#!/usr/bin/env bash
# Benchmarks in one run: the engine against a minimal heap loop, the whole lab
# on M/M/c against the same loop and, if SimPy 2 is installed
# (apt-get install -y python3-simpy), against SimPy on the same M/M/c.
# See bench/README.md. Takes about a minute on 2 cores.
#
# Environment: SCENARIO (default "default") and SCENARIO_DURATION (default 1h,
# 0 = whole) for the per-policy scenario benchmark; LAB_RUNS (default 5) whole
# M/M/c runs per lab benchmark line; SKIP_ENGINE=1 skips the engine lines.
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
echo "== whole lab on M/M/$C, rho=$RHO, $CUSTOMERS customers per run (x-ref = lab / reference, per customer)"
run -test.bench '^BenchmarkLabMMc$' -test.benchtime "${LAB_RUNS:-5}x"
echo "== scenario ${SCENARIO:-default} (cut to ${SCENARIO_DURATION:-1h}) per policy"
run -test.bench '^BenchmarkWorld$' -test.benchtime 1x -scenario "${SCENARIO:-default}" -scenario-duration "${SCENARIO_DURATION:-1h}"

# ns/customer of a LabMMc sub-benchmark.
perCustomer() { awk -v name="^BenchmarkLabMMc/$1(-[0-9]+)?\$" '$1 ~ name { for (i = 2; i < NF; i++) if ($(i+1) == "ns/customer") print $i }' "$out"; }
ref=$(perCustomer reference)
lab=$(perCustomer lab)

simpy=""
for py in python3 /usr/bin/python3; do
	if "$py" -c 'import SimPy' 2>/dev/null; then
		echo "== SimPy 2 on the same M/M/$C"
		line=$("$py" bench/mmc_simpy.py "$CUSTOMERS" "$C" "$RHO" 1)
		echo "$line"
		simpy=$(echo "$line" | sed -E 's/.* ([0-9.]+) ns\/customer.*/\1/')
		break
	fi
done

echo "== per customer on M/M/$C, rho=$RHO"
printf '  reference loop %10.1f ns\n  lab            %10.1f ns   lab / reference = %.1f  (goal <= 8, stretch 5)\n' "$ref" "$lab" "$(echo "$lab / $ref" | bc -l)"
if [ -n "$simpy" ]; then
	printf '  SimPy 2        %10.1f ns   SimPy / lab     = %.1f  (target >= 20)\n' "$simpy" "$(echo "$simpy / $lab" | bc -l)"
else
	echo "  SimPy 2 not installed (apt-get install -y python3-simpy): no SimPy ratio"
fi
