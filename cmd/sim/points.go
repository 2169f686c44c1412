package main

import (
	"fmt"
	"io"
	"sync"

	"github.com/evalsched/lab/lab"
	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/scenario"
	"github.com/evalsched/lab/sim"
)

// pointScenario builds a point's scenario: the file (or embedded one), its
// variant if named, the overlay merged on.
func pointScenario(p lab.PointSpec, cache map[string]*scenario.Scenario) (*scenario.Variant, error) {
	sc, ok := cache[p.Scenario]
	if !ok {
		var err error
		if sc, err = scenario.LoadScenario(p.Scenario); err != nil {
			return nil, err
		}
		cache[p.Scenario] = sc
	}
	policy := p.Policy
	if p.Variant != "" {
		v, err := sc.Variant(p.Variant)
		if err != nil {
			return nil, err
		}
		sc, policy = v.Scenario, v.Policy
	}
	if policy == "" {
		policy = scenario.DefaultVariantPolicy
	}
	for _, prm := range p.Settings {
		steps, err := scenario.SplitKey(prm.Key)
		if err == nil {
			err = sc.CheckItems(steps)
		}
		if err != nil && prm.Where != "" {
			return nil, fmt.Errorf("%s: %w", prm.Where, err)
		} else if err != nil {
			return nil, fmt.Errorf("point %s (%s): %s: %w", p.ID, p.Name, prm.Key, err)
		}
	}
	if p.Overlay != nil {
		var err error
		if sc, err = sc.WithOverlay(p.Overlay); err != nil {
			return nil, fmt.Errorf("point %s (%s): %w", p.ID, p.Name, err)
		}
	}
	if _, err := scenario.NewPolicy(policy, sc); err != nil {
		return nil, err
	}
	if err := sc.SetBudget(scenario.DefaultBudget, false); err != nil {
		return nil, err
	}
	return &scenario.Variant{Name: p.ID, Policy: policy, Scenario: sc}, nil
}

// runPoints runs the points idx of points on every seed (with the
// fixed-lane baseline on the same seed when a point asks for it), all at
// once through sim.ExecuteAll (at most GOMAXPROCS at a time), and calls done
// with a point's figures per seed as soon as its last run ends (one call at
// a time). A progress bar is drawn on stderr when it is a terminal.
func runPoints(stderr io.Writer, label string, points []lab.PointSpec, idx []int, seeds []uint64,
	done func(i int, perSeed [][]lab.MetricValue) error) error {
	cache := map[string]*scenario.Scenario{}
	var specs []sim.RunSpec
	var mu sync.Mutex
	var firstErr error
	for _, i := range idx {
		p := points[i]
		v, err := pointScenario(p, cache)
		if err != nil {
			return err
		}
		if v.Policy == "scheduler" {
			warnScenario(stderr, v.Scenario)
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
	if progress := newProgress(stderr, label, len(specs)); progress != nil {
		for j := range specs {
			specs[j].Progress = func(now, end sim.Time) { progress(j, now, end) }
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
func pointMetrics(runs [][]results.Run) [][]lab.MetricValue {
	out := make([][]lab.MetricValue, len(runs))
	for k, rs := range runs {
		var old *results.Run
		if len(rs) > 1 {
			old = &rs[1]
		}
		out[k] = lab.RunMetrics(rs[0], old)
	}
	return out
}
