package lab

import (
	"sync"

	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/scenario"
	"github.com/evalsched/lab/sim"
)

// Progress makes the progress callback of n runs (nil: none); the runs
// report to it by their index.
type Progress func(n int) func(run int, now, end sim.Time)

// RunPoints runs the points idx of points on every seed (with the
// fixed-lane baseline on the same seed when a point asks for it), all at
// once through sim.ExecuteAll (at most GOMAXPROCS at a time), and calls done
// with a point's figures per seed as soon as its last run ends (one call at
// a time), so a sweep can keep each point as it finishes. warn, if set, is
// handed each scheduler point's scenario (for settings its controller
// ignores).
func RunPoints(progress Progress, warn func(*scenario.Scenario), points []PointSpec, idx []int, seeds []uint64,
	done func(i int, perSeed [][]MetricValue) error) error {
	cache := map[string]*scenario.Scenario{}
	var specs []sim.RunSpec
	var mu sync.Mutex
	var firstErr error
	for _, i := range idx {
		p := points[i]
		v, err := BuildPoint(p, cache)
		if err != nil {
			return err
		}
		if warn != nil && v.Policy == "scheduler" {
			warn(v.Scenario)
		}
		arms := []*scenario.Variant{v}
		if p.Baseline {
			arms = append(arms, &scenario.Variant{Name: p.ID + "/fixed-lane", Policy: "fixed-lane", Scenario: v.Scenario})
		}
		runs := make([][]results.Run, len(seeds))
		left := len(seeds) * len(arms)
		for k, seed := range seeds {
			runs[k] = make([]results.Run, len(arms))
			for a, arm := range arms {
				specs = append(specs, sim.RunSpec{Policy: arm.Policy, Seed: seed, Variant: arm, Rows: results.Discard,
					Done: func(r results.Run) {
						mu.Lock()
						defer mu.Unlock()
						runs[k][a] = r
						if left--; left > 0 || firstErr != nil {
							return
						}
						firstErr = done(i, pointMetrics(runs))
					}})
			}
		}
	}
	if progress != nil {
		if report := progress(len(specs)); report != nil {
			for j := range specs {
				specs[j].Progress = func(now, end sim.Time) { report(j, now, end) }
			}
		}
	}
	if len(specs) == 0 {
		return nil
	}
	if _, err := sim.ExecuteAll(specs[0].Variant.Scenario, specs, nil); err != nil {
		return err
	}
	return firstErr
}

// pointMetrics are a point's figures per seed: runs[k] is seed k's run and,
// if any, its baseline.
func pointMetrics(runs [][]results.Run) [][]MetricValue {
	out := make([][]MetricValue, len(runs))
	for k, rs := range runs {
		var old *results.Run
		if len(rs) > 1 {
			old = &rs[1]
		}
		out[k] = RunMetrics(rs[0], old)
	}
	return out
}
