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

	"github.com/evalsched/lab/scenario"
)

// The cost gate (bench/costgate.sh, run by .ci/run): the lab's CPU time as
// ratios to the reference heap loop of BenchmarkLabMMc measured in the
// same process, side by side, never as absolute times. A round times the
// reference loop, one item, the reference loop again, for each item; an
// item's ratio for the round is its CPU time ÷ the mean of the two
// reference times around it; the gate reads each item's median over the
// rounds (SIM_COSTGATE_ROUNDS, default 11, after one round not counted) and
// fails when it is above its bound, naming the item and the ratio.
//
// The items: the whole lab on BenchmarkLabMMc's M/M/8 (fixed-lane,
// 100,000 customers) and the default scenario cut to 1 h (as
// BenchmarkWorld) under each policy.
//
// costGateRatio is each item's ratio on this machine (2 cores, shared),
// measured as docs/guides/scale.md says; an item fails above ratio × (1 +
// costGateMargin), the margin between the highest unchanged run and the
// slowed build (costgate_slow) where the two can be told apart.
var (
	costGateRatio  = map[string]float64{"LabMMc/lab": 2.60, "World/fixed-lane": 1.02, "World/scheduler": 3.08}
	costGateMargin = map[string]float64{"LabMMc/lab": 0.20, "World/fixed-lane": 0.12, "World/scheduler": 0.12}
)

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
	rounds := 11
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
	world, err := scenario.LoadScenario(scenario.DefaultScenario)
	if err != nil {
		t.Fatal(err)
	}
	world.Duration, world.Warmup = time.Hour, time.Hour/6
	run := func(sc *scenario.Scenario, policy string) func() {
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
	// An item's ratio for a round is its CPU time ÷ the mean of the two
	// reference timings around it, so that a drift of the machine's speed
	// within the run cancels; the gate reads the median over the rounds.
	perRound := map[string][]float64{}
	for r := range rounds + 1 {
		for _, it := range items {
			a := measure(reference)
			x := measure(it.run)
			b := measure(reference)
			if r > 0 {
				perRound[it.name] = append(perRound[it.name], x/((a+b)/2))
			}
		}
	}
	for _, it := range items {
		rs := slices.Sorted(slices.Values(perRound[it.name]))
		ratio := rs[len(rs)/2]
		if len(rs)%2 == 0 {
			ratio = (rs[len(rs)/2-1] + rs[len(rs)/2]) / 2
		}
		want := costGateRatio[it.name]
		bound := want * (1 + costGateMargin[it.name])
		// A line per item for bench/costgate.sh and the spread runs.
		fmt.Printf("costgate %-16s ratio %7.3f  (rounds: min %.3f max %.3f, n %d)  committed %.3f  bound %.3f\n",
			it.name, ratio, rs[0], rs[len(rs)-1], len(rs), want, bound)
		if ratio > bound {
			t.Errorf("cost gate: %s costs %.3f× the reference loop (median of %d rounds), above its bound %.3f (committed ratio %.3f: %+.0f%%)",
				it.name, ratio, rounds, bound, want, 100*(ratio/want-1))
		}
	}
}
