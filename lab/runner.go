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
// handed each scheduler point's warnings (PointWarnings: the settings its
// controller ignores). A baseline run is made once a seed for the points
// whose baselines run the same scenario (Baselines), and not at all when
// base (which may be nil) holds it from an earlier call; the runs made are
// added to base.
func RunPoints(progress Progress, warn func([]string), points []PointSpec, idx []int, seeds []uint64,
	base *Baselines, done func(i int, perSeed [][]MetricValue) error) error {
	if base == nil {
		base = NewBaselines()
	}
	cache := map[string]*scenario.Scenario{}
	var specs []sim.RunSpec
	var mu sync.Mutex
	var firstErr error
	// The points waiting on each baseline run this call makes: its Done
	// hands the run to each (under mu).
	waiting := map[baselineRun][]func(results.Run){}
	for _, i := range idx {
		p := points[i]
		v, err := BuildPoint(p, cache)
		if err != nil {
			return err
		}
		if warn != nil && v.Policy == "scheduler" {
			warn(PointWarnings(p, v.Scenario))
		}
		arms := 1
		if p.Baseline {
			arms = 2
		}
		runs := make([][]results.Run, len(seeds))
		left := len(seeds) * arms
		// ended takes one of the point's runs, under mu.
		ended := func(k, a int, r results.Run) {
			runs[k][a] = r
			if left--; left > 0 || firstErr != nil {
				return
			}
			firstErr = done(i, pointMetrics(runs))
		}
		for k, seed := range seeds {
			runs[k] = make([]results.Run, arms)
			specs = append(specs, sim.RunSpec{Policy: v.Policy, Seed: seed, Variant: v, Rows: results.Discard,
				Done: func(r results.Run) {
					mu.Lock()
					defer mu.Unlock()
					ended(k, 0, r)
				}})
			if !p.Baseline {
				continue
			}
			key := baselineOf(v.Scenario, seed)
			if r, ok := base.get(key); ok {
				runs[k][1] = r
				left--
				continue
			}
			first := len(waiting[key]) == 0
			waiting[key] = append(waiting[key], func(r results.Run) { ended(k, 1, r) })
			if !first {
				continue // an earlier point makes the run
			}
			arm := &scenario.Variant{Name: p.ID + "/" + BaselinePolicy, Policy: BaselinePolicy, Scenario: v.Scenario}
			specs = append(specs, sim.RunSpec{Policy: arm.Policy, Seed: seed, Variant: arm, Rows: results.Discard,
				Done: func(r results.Run) {
					base.put(key, r)
					mu.Lock()
					defer mu.Unlock()
					for _, f := range waiting[key] {
						f(r)
					}
				}})
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
