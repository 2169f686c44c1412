package sim

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/evalsched/lab/internal/cacheline"
	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/scenario"
	"github.com/evalsched/lab/workloads"
	"github.com/google/go-cmp/cmp"
)

// newWorld builds a run of a policy on sc with opts (its Policy set here).
func newWorld(t *testing.T, sc *scenario.Scenario, policy string, opts Options) *World {
	t.Helper()
	pol, err := scenario.NewPolicy(policy, sc)
	if err != nil {
		t.Fatal(err)
	}
	opts.Policy = pol
	w, err := NewWorld(sc, opts)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// runWorld runs a policy on sc with opts (its Policy set here), calling
// before, if set, on the world before it runs.
func runWorld(t *testing.T, sc *scenario.Scenario, policy string, opts Options, before func(*World)) *World {
	t.Helper()
	w := newWorld(t, sc, policy, opts)
	if before != nil {
		before(w)
	}
	if err := w.Run(); err != nil {
		t.Fatal(err)
	}
	return w
}

// runStreamed runs a policy on sc with its rows streamed to a discard sink,
// as sim run and sim compare do.
func runStreamed(t *testing.T, sc *scenario.Scenario, policy string) *World {
	t.Helper()
	return runWorld(t, sc, policy, Options{Seed: 1}, func(w *World) { w.StreamRows(results.Discard) })
}

// TestBatchesPruned: once every batch is done, nothing is left in the
// recorder's batch maps nor in its tracking lists.
func TestBatchesPruned(t *testing.T) {
	for _, policy := range scenario.PolicyNames() {
		t.Run(policy, func(t *testing.T) {
			// Arrivals only in the first minutes (a burst of large batches
			// and small ones behind them), then an hour to drain.
			sc := smallScenario(t, func(sc *scenario.Scenario) {
				sc.Duration = 3 * time.Hour
				sc.Workload.Batches.RatePerHour = 0
				sc.Workload.Batches.Size = workloads.Dist{Kind: "uniform", Min: 1001, Max: 1200}
				sc.Workload.Batches.Bursts = []workloads.Burst{{At: time.Minute, Batches: 2, Spread: time.Minute}}
				sc.Workload.Background.RatePerHour = 0
				sc.Workload.Background.Size = workloads.Dist{Kind: "uniform", Min: 5, Max: 40}
				sc.Workload.Background.Bursts = []workloads.Burst{{At: 6 * time.Minute, Batches: 5, Spread: time.Minute}}
				sc.Events = nil
			})
			w := runStreamed(t, sc, policy)
			if c := w.Counts(); c.JobsCompleted != c.JobsArrived || c.JobsArrived < 1000 {
				t.Fatalf("%d of %d jobs completed: the scenario should drain more than 1000", c.JobsCompleted, c.JobsArrived)
			}
			f, ids := &w.rec.fair, &w.ids
			moved := 0 // records still pointing to a tracked batch's state
			for s := range f.batches.n {
				if f.batches.at(s).ext != nil {
					moved++
				}
			}
			if n := len(f.liveBatches()); n != 0 || len(ids.batchIDs) != 0 || len(f.tracked) != 0 || len(f.dirty) != 0 ||
				moved != 0 || f.batches.n != ids.batches.n || len(ids.batches.free) != int(ids.batches.n) {
				t.Errorf("after every batch finished: %d batches, %d names, %d tracked, %d dirty, %d records holding a tracked state, %d records for the world's %d slots (%d free); want none but free slots",
					n, len(ids.batchIDs), len(f.tracked), len(f.dirty), moved, f.batches.n, ids.batches.n, len(ids.batches.free))
			}
			if fd := w.Fairness(); fd.Small.Count != 5 || len(fd.Small.Makespans) != 5 {
				t.Errorf("%d small batches counted, %d makespans kept; want the 5 pruned ones", fd.Small.Count, len(fd.Small.Makespans))
			}
		})
	}
}

// TestRetainedStateBounded: what a streamed run keeps besides the compact
// per-job time splits is bounded by what is in flight: every batch in the
// maps still has a job not done, every tracked batch is in the maps, no
// batch progress row is kept and series rows only where a limit is kept —
// at two run lengths, the longer one finishing several times more jobs.
func TestRetainedStateBounded(t *testing.T) {
	var finished []int64
	for _, d := range []time.Duration{40 * time.Minute, 3 * time.Hour} {
		sc := smallScenario(t, func(sc *scenario.Scenario) {
			sc.Duration = d
			sc.Workload.Batches.Bursts = nil
		})
		w := runStreamed(t, sc, "fixed-lane")
		f, ids := &w.rec.fair, &w.ids
		batches := f.liveBatches()
		live := 0
		for _, b := range batches {
			if b.done < b.arrived {
				live++
			}
		}
		// A batch whose jobs are all done stays only while a grading job is
		// about to arrive: at most the jobs finished at the very last instant.
		// Slots: the live batches and the free ones.
		names := len(batches)
		if ids.uniqueNames {
			names = 0
		}
		worldLive := int(ids.batches.n) - len(ids.batches.free)
		if len(ids.batchIDs) != names || worldLive != len(batches) || len(batches)-live > 1 || f.batches.n != ids.batches.n {
			t.Errorf("%v: %d batches (%d live in the world, %d names, %d records for the world's %d slots), of which %d unfinished",
				d, len(batches), worldLive, len(ids.batchIDs), f.batches.n, ids.batches.n, live)
		}
		for _, b := range f.tracked {
			if !b.live {
				t.Errorf("%v: tracked batch %s is not live", d, b.name)
			}
		}
		if n := len(w.BatchProgress()); n != 0 {
			t.Errorf("%v: %d batch progress rows kept, want 0", d, n)
		}
		for _, r := range w.Series() {
			if r.Limit < 0 {
				t.Fatalf("%v: a series row without a limit is kept", d)
			}
		}
		if len(w.Log()) != 0 {
			t.Errorf("%v: %d log records kept without Options.Log", d, len(w.Log()))
		}
		finished = append(finished, w.Counts().JobsCompleted)
		t.Logf("%v: %d jobs finished, %d batches live, %d tracked", d, w.Counts().JobsCompleted, len(batches), len(f.tracked))
	}
	if finished[1] < 3*finished[0] {
		t.Errorf("finished %v jobs: the longer run should finish several times more", finished)
	}
}

// TestStreamedSummaryUnchanged: a run whose rows are streamed away keeps
// only its limits, compactly, and summarises exactly as one that keeps
// every row (convergence included).
func TestStreamedSummaryUnchanged(t *testing.T) {
	for _, policy := range scenario.PolicyNames() {
		t.Run(policy, func(t *testing.T) {
			sc := smallScenario(t, nil)
			kept := runStreamed(t, sc, policy)
			full := runWorld(t, sc, policy, Options{Seed: 1}, nil)
			want, got := results.Summarize(full.Measured()), results.Summarize(kept.Measured())
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("summary (-want +got):\n%s", diff)
			}
			if policy == "scheduler" && len(got.Convergence) == 0 {
				t.Error("no convergence rows: the test needs a moving limit")
			}
		})
	}
}

// TestUniqueBatchesMatchNameLookup: the recorder skips the batch-name map
// when the source promises unique, contiguous batches (the generator); the
// run must summarise exactly as with the name lookup every trace gets, and
// its batch rows and progress must be the same.
func TestUniqueBatchesMatchNameLookup(t *testing.T) {
	for _, policy := range scenario.PolicyNames() {
		t.Run(policy, func(t *testing.T) {
			sc := smallScenario(t, nil)
			fast := runWorld(t, sc, policy, Options{Seed: 1}, func(w *World) {
				if !w.ids.uniqueNames {
					t.Fatal("the generator does not promise unique batches: the test checks nothing")
				}
			})
			named := runWorld(t, sc, policy, Options{Seed: 1}, func(w *World) { w.ids.uniqueNames = false })
			want, got := results.Summarize(named.Measured()), results.Summarize(fast.Measured())
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("summary, name lookup vs unique batches (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(named.Fairness(), fast.Fairness()); diff != "" {
				t.Errorf("fairness data (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(named.BatchProgress(), fast.BatchProgress()); diff != "" {
				t.Errorf("batch progress rows (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAcceptedTryTokens: an accepted try's real tokens, one conversion of
// the integer sum, are summed into the telemetry and the model's row as
// the sum of the two converted counts would be, to the bit.
func TestAcceptedTryTokens(t *testing.T) {
	pairs := [][2]int32{{0, 0}, {1, 0}, {0, 1}, {1 << 30, 1 << 30}, {1<<31 - 1, 1<<31 - 1}, {-1 << 31, 1<<31 - 1}, {-1 << 31, -1 << 31}, {123457, 98765}}
	rn := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		pairs = append(pairs, [2]int32{int32(rn.Uint32()), int32(rn.Uint32() >> rn.IntN(32))})
	}
	r := recorder{lanes: cacheline.Slice[laneMeter](1), quota: quotaMeter{evalUse: make([][3]float64, 1)}}
	var real float64
	for _, p := range pairs {
		cs := &callState{kind: jobCall, in: p[0], out: p[1]}
		r.acceptedTry(cs, &r.lanes[0], 0, -1, 0)
		real += float64(p[0]) + float64(p[1])
		if got := r.quota.evalUse[0][2]; got != real || r.lanes[0].realSince != real {
			t.Fatalf("after %v: real tokens %v and %v, want %v", p, got, r.lanes[0].realSince, real)
		}
	}
}
