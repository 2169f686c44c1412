package sim

import (
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/evalsched/lab/scenario"
	"github.com/google/go-cmp/cmp"
)

// TestRunGateHoldsBudget: runs admitted through the gate never have more
// than slots in flight nor, once two or more are in flight, more estimated
// bytes than the budget; a run larger than the budget runs alone.
func TestRunGateHoldsBudget(t *testing.T) {
	for _, tc := range []struct {
		name        string
		slots       int
		budget      float64
		sizes       []float64
		wantMaxRuns int // the most runs in flight the sizes and budget allow
	}{
		{"slots bind", 2, 0, []float64{5, 5, 5, 5, 5, 5}, 2},
		{"budget binds", 4, 10, []float64{4, 4, 4, 4, 4, 4}, 2},
		{"one over budget runs alone", 4, 10, []float64{12, 3, 12, 3}, 1},
		{"no budget, many slots", 8, 0, []float64{1, 1, 1}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newRunGate(tc.slots, tc.budget)
			var mu sync.Mutex
			runs, bytes, maxRuns := 0, 0.0, 0
			var wg sync.WaitGroup
			for _, b := range tc.sizes {
				g.admit(func(fits func(float64) bool) (int, float64, bool) { return 0, b, fits(b) })
				mu.Lock()
				runs++
				bytes += b
				maxRuns = max(maxRuns, runs)
				if runs > tc.slots {
					t.Errorf("%d runs in flight, slots %d", runs, tc.slots)
				}
				if tc.budget > 0 && runs > 1 && bytes > tc.budget {
					t.Errorf("%g bytes in flight over %d runs, budget %g", bytes, runs, tc.budget)
				}
				mu.Unlock()
				wg.Add(1)
				go func() {
					defer wg.Done()
					time.Sleep(20 * time.Millisecond) // a run: long beside an acquire
					mu.Lock()
					runs--
					bytes -= b
					mu.Unlock()
					g.release(b)
				}()
			}
			wg.Wait()
			if maxRuns != tc.wantMaxRuns {
				t.Errorf("at most %d runs in flight, want %d", maxRuns, tc.wantMaxRuns)
			}
		})
	}
}

// TestExecuteAllSameUnderBudget: the runs of two policies on three seeds
// come out byte-identical whether they run in parallel or one at a time (a
// memory budget that fits one run only), and in spec order or costliest
// class first (RunSpec.Class).
func TestExecuteAllSameUnderBudget(t *testing.T) {
	var specs []RunSpec
	for _, seed := range []uint64{1, 2, 3} {
		for _, policy := range []string{"fixed-lane", "scheduler"} {
			specs = append(specs, RunSpec{Policy: policy, Seed: seed})
		}
	}
	run := func(budget func(est float64) uint64) []byte {
		sc := smallScenario(t, nil)
		est := sc.Estimate(false).Bytes
		if err := sc.SetBudget(scenario.Budget{MaxMemory: budget(est)}, false); err != nil {
			t.Fatal(err)
		}
		runs, err := ExecuteAll(sc, specs, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(runs)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	parallel := run(func(float64) uint64 { return 0 })
	serial := run(func(est float64) uint64 { return uint64(est * 1.5) })
	if diff := cmp.Diff(string(parallel), string(serial)); diff != "" {
		t.Errorf("runs in parallel vs one at a time under a one-run budget (-parallel +serial):\n%s", diff)
	}
	for i := range specs {
		specs[i].Class = specs[i].Policy
	}
	if diff := cmp.Diff(string(parallel), string(run(func(float64) uint64 { return 0 }))); diff != "" {
		t.Errorf("runs in spec order vs costliest class first (-spec order +classes):\n%s", diff)
	}
}
