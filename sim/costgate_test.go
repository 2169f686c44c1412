package sim

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// The cost gate (bench/costgate.sh, run by .ci/run): the lab's CPU time as
// ratios to the reference heap loop of BenchmarkLabMMc measured in the
// same process, side by side, never as absolute times. A round times the
// reference loop, one item, the reference loop again, for each item; the
// gate reads each item's least CPU time over the rounds
// (SIM_COSTGATE_ROUNDS, default 9, after one round not counted) ÷ the
// reference's least, and fails when that ratio is above its bound, naming
// the item and the ratio.
//
// The items: the whole lab on BenchmarkLabMMc's M/M/8 (fixed-lane,
// 100,000 customers) and the default scenario cut to 1 h (as
// BenchmarkWorld) under each policy.
//
// costGateRatio is each item's ratio on this machine (2 cores, shared):
// the median of the gate's ratios over the spread runs in
// docs/guides/scale.md. An item fails above ratio × (1 + costGateMargin);
// how the margin was chosen from the spread is written there.
var costGateRatio = map[string]float64{"LabMMc/lab": 2.11, "World/fixed-lane": 1.50, "World/scheduler": 5.51}

const costGateMargin = 0.15

// costGateRefReps: the reference loop's runs per timing (100,000 customers
// each, ~6 ms), so that a timing lasts tens of milliseconds.
const costGateRefReps = 8

// processCPU is this process's user + system CPU time.
func processCPU(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func TestCostGate(t *testing.T) {
	if os.Getenv("SIM_COSTGATE") != "1" {
		t.Skip("the cost gate runs with SIM_COSTGATE=1 (bash bench/costgate.sh)")
	}
	rounds := 9
	if v := os.Getenv("SIM_COSTGATE_ROUNDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("SIM_COSTGATE_ROUNDS=%q: want a count", v)
		}
		rounds = n
	}
	inter, service := engMMcDraws()
	reference := func() {
		for range costGateRefReps {
			m := &engMMc{servers: engMMcServers, inter: inter, service: service}
			m.runReference(1<<62, labMMcCustomers)
		}
	}
	mmc := labMMcScenario(t)
	world, err := LoadScenario(DefaultScenario)
	if err != nil {
		t.Fatal(err)
	}
	world.Duration, world.Warmup = time.Hour, time.Hour/6
	run := func(sc *Scenario, policy string) func() {
		return func() {
			if _, err := Execute(sc, RunSpec{Policy: policy, Seed: 1}); err != nil {
				t.Fatal(err)
			}
		}
	}
	items := []struct {
		name string
		run  func()
	}{
		{"LabMMc/lab", run(mmc, "fixed-lane")},
		{"World/fixed-lane", run(world, "fixed-lane")},
		{"World/scheduler", run(world, "scheduler")},
	}
	measure := func(f func()) float64 {
		runtime.GC()
		c0 := processCPU(t)
		f()
		return float64(processCPU(t) - c0)
	}
	// Interference from other work on the machine only adds time, so each
	// item and the reference are read at their fastest round: ratio = an
	// item's least CPU time over the rounds ÷ the reference's least. The
	// median of the per-round ratios is printed beside it.
	times := map[string][]float64{}
	var refs []float64
	var perRound = map[string][]float64{}
	for r := range rounds + 1 {
		for _, it := range items {
			a := measure(reference)
			x := measure(it.run)
			b := measure(reference)
			if r > 0 {
				times[it.name] = append(times[it.name], x)
				refs = append(refs, a, b)
				perRound[it.name] = append(perRound[it.name], x/((a+b)/2))
			}
		}
	}
	ref := slices.Min(refs)
	for _, it := range items {
		ratio := slices.Min(times[it.name]) / ref
		rs := slices.Sorted(slices.Values(perRound[it.name]))
		want := costGateRatio[it.name]
		bound := want * (1 + costGateMargin)
		// A line per item for bench/costgate.sh and the spread runs.
		fmt.Printf("costgate %-16s ratio %7.3f  (per round: median %.3f min %.3f max %.3f, n %d)  committed %.3f  bound %.3f\n",
			it.name, ratio, rs[len(rs)/2], rs[0], rs[len(rs)-1], len(rs), want, bound)
		if ratio > bound {
			t.Errorf("cost gate: %s costs %.3f× the reference loop (fastest of %d rounds each), above its bound %.3f (committed ratio %.3f: %+.0f%%)",
				it.name, ratio, rounds, bound, want, 100*(ratio/want-1))
		}
	}
}
