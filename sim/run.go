package sim

import (
	"fmt"
	"io"
	"runtime"
	"sync"
	"time"

	"github.com/evalsched/lab/policies"
	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/scenario"
	"github.com/evalsched/lab/workloads"
)

// RunSpec names one run: a policy on a scenario with a seed.
type RunSpec struct {
	Policy string
	Seed   uint64
	// Variant, if set, runs the variant's scenario (instead of the one
	// given to ExecuteAll) and names the run after the variant.
	Variant *scenario.Variant
	// Source, if set, replaces the scenario's generator.
	Source   workloads.Source
	Progress func(now, end Time)
	// Rows, if set, receives the run's series.csv and batches.csv rows as
	// they are made (World.StreamRows); otherwise the world keeps them.
	Rows results.RowSink
	// Spans, if set, receives each of the run's jobs as it ends (the
	// --otlp output); it is called from the run's goroutine.
	Spans results.SpanSink
	// Done, if set, is called (from the run's goroutine) with the run's
	// summary as soon as ExecuteAll has it, before the other runs end.
	Done func(results.Run)
	// Class, if set, names the runs expected to cost alike (one arm of a
	// compare over its seeds): ExecuteAll starts those of the costliest
	// class so far first (runOrder). Runs without one start in spec order.
	Class string
}

// ScenarioFor is the scenario the run simulates: its variant's, else base.
func (s RunSpec) ScenarioFor(base *scenario.Scenario) *scenario.Scenario {
	if s.Variant != nil {
		return s.Variant.Scenario
	}
	return base
}

// Label is the run's name in outputs: the variant's name, else the policy's.
func (s RunSpec) Label() string {
	if s.Variant != nil {
		return s.Variant.Name
	}
	return s.Policy
}

// Execute runs one policy on the scenario and returns the finished world.
// A policy that holds resources (an io.Closer: one in another process) is
// closed when the run ends.
func Execute(sc *scenario.Scenario, spec RunSpec) (w *World, err error) {
	pol, err := scenario.NewPolicy(spec.Policy, sc)
	if err != nil {
		return nil, err
	}
	if c, ok := pol.(io.Closer); ok {
		defer func() {
			if cerr := c.Close(); err == nil && cerr != nil {
				w, err = nil, cerr
			}
		}()
	}
	w, err = NewWorld(sc, Options{Seed: spec.Seed, Policy: pol, Source: spec.Source, Progress: spec.Progress, Variant: spec.Variant, Spans: spec.Spans})
	if err != nil {
		return nil, err
	}
	if spec.Rows != nil {
		if n, ok := spec.Rows.(results.RunNamer); ok {
			n.NameRun(w.runName()) // the rows name the run as summary.json does
		}
		w.StreamRows(spec.Rows)
	}
	if err := w.Run(); err != nil {
		return nil, err
	}
	return w, nil
}

// runName is the run's name in every output: its variant's, else the
// name its policy gives itself (an exec policy's, not the flag's text).
func (w *World) runName() string {
	if v := w.opts.Variant; v != nil {
		return v.Name
	}
	return w.pol.Name()
}

// Measured packs a finished world's measurements for the results package.
func (w *World) Measured() results.RunData {
	c := w.Counts()
	name, variant := w.runName(), (*results.RunVariant)(nil)
	if v := w.opts.Variant; v != nil {
		variant = &results.RunVariant{Name: v.Name, Policy: v.Policy}
	}
	return results.RunData{
		Policy:        name,
		Variant:       variant,
		WindowStart:   w.windowStart.Seconds(),
		WindowEnd:     w.end.Seconds(),
		PricePerHour:  w.sc.Containers.PricePerHour,
		Billing:       w.rec.prices != nil,
		Lanes:         w.Lanes(),
		Series:        w.Series(),
		Events:        w.EventsProcessed(),
		JobsArrived:   c.JobsArrived,
		JobsCompleted: c.JobsCompleted,
		JobsFailed:    c.JobsFailed,
		Models:        w.sc.Catalogue(),
		Fairness:      w.Fairness(),
		Disturbances:  disturbances(w.sc),
		Targets:       w.targets(),
		BatchProgress: w.BatchProgress(),
		Production:    w.Production(),
		QuotaUse:      w.QuotaUsage(),
		Quota:         w.quotaRun(),
		Alerts:        w.Alerts(),
		Guards:        w.GuardStats(),
		BatchLanes:    w.BatchLanes(),
	}
}

// disturbances are the instants a controller must settle after: the start,
// every burst of batches, every capacity event.
func disturbances(s *scenario.Scenario) []results.Disturbance {
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
func Compare(sc *scenario.Scenario, seed uint64, names []string, newSource func() (workloads.Source, error), progress func(i int, now, end Time)) ([]*World, error) {
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

// ExecuteAll runs every spec on the scenario, at most GOMAXPROCS at a time
// and, when the scenario has a memory budget (RunBudget.MaxMemory), only as
// many at once as their estimated bytes (Scenario.Estimate) fit in it; it
// summarises each run on its own goroutine as soon as its simulation
// ends (its world is dropped then). When a slot frees, the run expected to
// take longest starts (runOrder: by the specs' classes; specs without one
// in spec order). The runs come back in spec order, so the result does not
// depend on scheduling. newSource, if set, opens the job stream of each run
// that has no Source; a stream it opened that is an io.Closer is closed
// when its run ends.
func ExecuteAll(sc *scenario.Scenario, specs []RunSpec, newSource func() (workloads.Source, error)) ([]results.Run, error) {
	runs := make([]results.Run, len(specs))
	errs := make([]error, len(specs))
	gate := newRunGate(runtime.GOMAXPROCS(0), float64(sc.RunBudget.MaxMemory))
	order, begin := newRunOrder(specs), time.Now()
	bytes := make([]float64, len(specs))
	for i := range specs {
		bytes[i] = specs[i].ScenarioFor(sc).Estimate(specs[i].Source != nil || newSource != nil).Bytes
	}
	var wg sync.WaitGroup
	for range specs {
		i := gate.admit(func(fits func(float64) bool) (int, float64, bool) {
			i, ok := order.pick(time.Since(begin), func(i int) bool { return fits(bytes[i]) })
			return i, bytes[i], ok
		})
		wg.Add(1)
		sc := specs[i].ScenarioFor(sc)
		go func() {
			defer func() { order.end(i, time.Since(begin)); gate.release(bytes[i]); wg.Done() }()
			spec := specs[i]
			if spec.Variant != nil {
				spec.Policy = spec.Variant.Policy
			}
			if spec.Source == nil && newSource != nil {
				if spec.Source, errs[i] = newSource(); errs[i] != nil {
					return
				}
				// A run may end before its stream: the source it opened
				// is closed with it (a trace's file, a reader ahead).
				if c, ok := spec.Source.(io.Closer); ok {
					defer c.Close()
				}
			}
			w, err := Execute(sc, spec)
			if err != nil {
				errs[i] = err
				return
			}
			runs[i] = results.Summarize(w.Measured())
			if spec.Done != nil {
				spec.Done(runs[i])
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("%s: %w", specs[i].Label(), err)
		}
	}
	return runs, nil
}

// targets is each model's target gateway depth under a policy that keeps
// one (policies.DepthTargets, worn or not), nil otherwise.
func (w *World) targets() []float64 {
	if t, ok := w.pol.(policies.DepthTargets); ok {
		return t.TargetDepths()
	}
	return nil
}
