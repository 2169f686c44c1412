package sim

import (
	"fmt"

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
		JobsFailed:    c.JobsFailed,
		Models:        w.sc.Catalogue(),
		Fairness:      w.Fairness(),
		Disturbances:  w.sc.Disturbances(),
		BatchProgress: w.rec.fair.progress,
		Production:    w.Production(),
	}
}

// Disturbances are the instants a controller must settle after: the start,
// every burst of batches, every capacity event.
func (s *Scenario) Disturbances() []results.Disturbance {
	ds := []results.Disturbance{{Kind: results.DisturbanceStart}}
	for _, bp := range []workloads.BatchProcess{s.Workload.Batches, s.Workload.Background} {
		for _, b := range bp.Bursts {
			ds = append(ds, results.Disturbance{Kind: results.DisturbanceBurst, At: b.At})
		}
	}
	for _, e := range s.Events {
		kind := e.Label
		if kind == "" {
			kind = results.DisturbanceCapacity
		}
		ds = append(ds, results.Disturbance{Kind: kind, At: e.At, Model: e.Model})
	}
	return ds
}

// Compare runs several policies on the identical job stream (same scenario,
// same seed), each on its own goroutine, and returns their worlds in order.
// newSource, if set, opens the job stream for each run (e.g. a trace reader);
// otherwise each run draws it from the scenario's generator.
func Compare(sc *Scenario, seed uint64, names []string, newSource func() (workloads.Source, error), progress func(i int, now, end Time)) ([]*World, error) {
	worlds := make([]*World, len(names))
	errs := make([]error, len(names))
	done := make(chan struct{}, len(names))
	for i, name := range names {
		go func() {
			defer func() { done <- struct{}{} }()
			spec := RunSpec{Policy: name, Seed: seed}
			if newSource != nil {
				if spec.Source, errs[i] = newSource(); errs[i] != nil {
					return
				}
			}
			if progress != nil {
				spec.Progress = func(now, end Time) { progress(i, now, end) }
			}
			worlds[i], errs[i] = Execute(sc, spec)
		}()
	}
	for range names {
		<-done
	}
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("%s: %w", names[i], err)
		}
	}
	return worlds, nil
}
