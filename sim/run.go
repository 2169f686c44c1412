package sim

import (
	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/workloads"
)

// RunSpec names one run: a policy on a scenario with a seed.
type RunSpec struct {
	Policy string
	Seed   uint64
	// Source, if set, replaces the scenario's generator.
	Source   workloads.Source
	Progress func(now, end Time)
}

// Execute runs one policy on the scenario and returns the finished world.
func Execute(sc *Scenario, spec RunSpec) (*World, error) {
	pol, err := NewPolicy(spec.Policy, sc)
	if err != nil {
		return nil, err
	}
	w, err := NewWorld(sc, Options{Seed: spec.Seed, Policy: pol, Source: spec.Source, Progress: spec.Progress})
	if err != nil {
		return nil, err
	}
	if err := w.Run(); err != nil {
		return nil, err
	}
	return w, nil
}

// Measured packs a finished world's measurements for the results package.
func (w *World) Measured() results.RunData {
	c := w.Counts()
	return results.RunData{
		Policy:        w.pol.Name(),
		WindowStart:   w.windowStart.Seconds(),
		WindowEnd:     w.end.Seconds(),
		PricePerHour:  w.sc.Containers.PricePerHour,
		Lanes:         w.Lanes(),
		Series:        w.Series(),
		Events:        w.EventsProcessed(),
		JobsArrived:   c.JobsArrived,
		JobsCompleted: c.JobsCompleted,
	}
}
