package sim

import (
	"runtime"
	"testing"

	"github.com/evalsched/lab/scenario"
	"github.com/evalsched/lab/workloads"
)

// mmcAllocBudgetPerJob is what the whole world may allocate per job on the
// M/M/c scenario, where every job is its own batch (background batches of
// size 1). Per-job and per-batch records are kept in pages or reused slots,
// and the generator formats batch names a block at a time, so what remains
// is a page now and then. Measured: 0.006 to 0.015 per job.
const mmcAllocBudgetPerJob = 0.1

// allocRun is one steady-state measurement: a long run minus a short one,
// so set-up and slice growth to the steady-state size cancel.
type allocRun struct {
	allocs, events, jobs float64
}

func mallocsDuring(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.Mallocs - before.Mallocs
}

// steadyAllocs runs sc cut to short and long jobs-worth of time and returns
// the difference.
func steadyAllocs(t *testing.T, sc *scenario.Scenario, lambda float64, short, long int) allocRun {
	t.Helper()
	var d allocRun
	for i, n := range []int{short, long} {
		hours := float64(n) / lambda / 3600
		s := *sc
		s.Duration = FromSeconds(hours * 3600).Duration()
		s.Warmup = s.Duration / 20
		var w *World
		allocs := mallocsDuring(func() {
			var err error
			if w, err = Execute(&s, RunSpec{Policy: "fixed-lane", Seed: 3}); err != nil {
				t.Fatal(err)
			}
		})
		sign := float64(2*i - 1) // short: -1, long: +1
		d.allocs += sign * float64(allocs)
		d.events += sign * float64(w.EventsProcessed())
		d.jobs += sign * float64(w.Counts().JobsArrived)
	}
	return d
}

// TestWorldSteadyStateAllocations: on M/M/c the whole world (policy,
// generator, gateway, provider, recorder) allocates nothing per event in
// steady state; what it allocates is per job (see mmcAllocBudgetPerJob).
// Two variants of the scenario with the same jobs but different numbers of
// events per job (one call, or four turns of two calls) separate the two:
// the per-event rate is the slope of allocations per job against events per
// job between them. A single allocation per call, per event of any kind, or
// per engine event would make it 0.3 to 1; the check is < 0.01.
func TestWorldSteadyStateAllocations(t *testing.T) {
	checkSteadyAllocations(t, func(c int, lambda float64) *scenario.Scenario { return mmcScenario(t, c, lambda, 1) })
}

// TestWorldSteadyStateAllocationsPresetMeters is the same check with the
// model on an organisation metered as the anthropic preset does (token
// buckets for RPM, ITPM and OTPM, output at max_tokens given back at the
// end, the prompt cache) and priced: the meters, the cache and the bill
// allocate nothing per event either.
func TestWorldSteadyStateAllocationsPresetMeters(t *testing.T) {
	checkSteadyAllocations(t, func(c int, lambda float64) *scenario.Scenario {
		return mmcScenarioWith(t, c, lambda, 1, "organisations:\n  - {name: o, preset: anthropic, rpm: 10000000, itpm: 100000000000, otpm: 10000000000}\n",
			", org: o, prices: {input: 3, output: 15}", ", max_tokens: 100")
	})
}

func checkSteadyAllocations(t *testing.T, mk func(c int, lambda float64) *scenario.Scenario) {
	const c = 8
	variants := []struct {
		name          string
		turns, fanout float64
	}{
		{"one-call", 1, 1},
		{"4-turns-of-2-calls", 4, 2},
	}
	runs := make([]allocRun, len(variants))
	for i, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			lambda := 0.9 * c / (v.turns * v.fanout) // ρ = 0.9 at the provider
			sc := mk(c, lambda)
			b := sc.Workload.Behaviours["one"]
			b.Turns, b.Fanout = workloads.Fixed(v.turns), workloads.Fixed(v.fanout)
			sc.Workload.Behaviours["one"] = b
			jobs := int(40000 / (v.turns * v.fanout))
			d := steadyAllocs(t, sc, lambda, jobs/5, jobs)
			runs[i] = d
			perJob := d.allocs / d.jobs
			t.Logf("long minus short run: %.0f allocations, %.0f events, %.0f jobs: %.3f per job, %.4f per event, %.1f events per job",
				d.allocs, d.events, d.jobs, perJob, d.allocs/d.events, d.events/d.jobs)
			if perJob > mmcAllocBudgetPerJob {
				t.Errorf("%.3f allocations per job, budget %g", perJob, mmcAllocBudgetPerJob)
			}
		})
	}
	a, b := runs[0], runs[1]
	if a.jobs <= 0 || b.jobs <= 0 {
		t.Fatal("a variant did not run")
	}
	eventsA, eventsB := a.events/a.jobs, b.events/b.jobs
	if eventsB-eventsA < 5 {
		t.Fatalf("variants differ by only %.1f events per job", eventsB-eventsA)
	}
	perEvent := (b.allocs/b.jobs - a.allocs/a.jobs) / (eventsB - eventsA)
	t.Logf("allocations per event in steady state: %.5f", perEvent)
	if perEvent > 0.01 || perEvent < -0.01 {
		t.Errorf("%.4f allocations per event in steady state, want 0", perEvent)
	}
}
