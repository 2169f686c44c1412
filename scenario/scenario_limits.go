package scenario

import (
	"fmt"
	"time"

	"github.com/evalsched/lab/internal/field"
	"github.com/evalsched/lab/workloads"
)

// Limits a scenario's numbers must keep besides their meaning: sizes that
// bound memory before anything is allocated, periods that bound the events
// per virtual second, and factors that keep latencies finite. The README's
// "Limits" section lists them.
const (
	MaxModels        = 10_000     // models in the catalogue
	MaxContainers    = 10_000_000 // containers.capacity
	MaxStreams       = 1_000_000  // streams and inflight_limit of a model
	MaxAccounts      = 1_000_000  // workload.accounts
	MaxProjects      = 10_000_000 // accounts × projects_per_account
	MaxFactor        = 1000       // slowdown.max, jitter.cv, events' capacity and latency, retry multiplier
	MaxRatePerHour   = 1_000_000  // batches per hour of a batch process
	MaxBurstBatches  = 1_000_000  // batches of one burst
	MaxHistory       = 1e15       // organisations[].history requests or tokens (window sums stay exact below 2^53)
	MinPeriod        = time.Millisecond
	maxSpeedupFactor = 1_000_000 // production speedup
)

// validateSizes runs before the catalogue is built and the workload is
// compiled: it refuses sizes that would exhaust memory while building them,
// and periods so short a run could not advance.
func (s *Scenario) validateSizes() error {
	models := len(s.Models)
	if models > MaxModels {
		return field.Errorf("models", "%d models: at most %d", models, MaxModels)
	}
	for i, g := range s.ModelGroups {
		if g.Count > MaxModels-models { // compared, not added: a count near MaxInt64 would wrap the sum
			return field.Errorf(fmt.Sprintf("model_groups[%d].count", i), "%d models with the %d before: at most %d in all", g.Count, models, MaxModels)
		}
		models += max(g.Count, 0)
	}
	for _, p := range []struct {
		path string
		d    time.Duration
	}{
		{"series_interval", s.SeriesInterval}, {"fairness_window", s.FairnessWindow},
		{"gateway.depth_sample", s.Gateway.DepthSample}, {"gateway.retry.base", s.Gateway.Retry.Base},
		{"policies.scheduler.tick", s.Policies.Scheduler.Tick},
	} {
		if p.d > 0 && p.d < MinPeriod {
			return field.Errorf(p.path, "must be at least %v, got %v", MinPeriod, p.d)
		}
	}
	w := &s.Workload
	switch {
	case s.Containers.Capacity > MaxContainers:
		return field.Errorf("containers.capacity", "at most %d, got %d", MaxContainers, s.Containers.Capacity)
	case w.Accounts > MaxAccounts:
		return field.Errorf("workload.accounts", "at most %d, got %d", MaxAccounts, w.Accounts)
	case w.Accounts > 0 && w.ProjectsPerAccount > MaxProjects/w.Accounts: // divided: the product can overflow
		return field.Errorf("workload.projects_per_account", "%d accounts × %d projects: at most %d projects in all", w.Accounts, w.ProjectsPerAccount, MaxProjects)
	}
	return nil
}

// validateLimits runs last, on a scenario valid in every other respect.
func (s *Scenario) validateLimits() error {
	for i := range s.catalogue {
		m, p := &s.catalogue[i], s.source[i]
		switch {
		case m.Streams > MaxStreams:
			return field.Errorf(p+".streams", "at most %d, got %d", MaxStreams, m.Streams)
		case m.InflightLimit > MaxStreams:
			return field.Errorf(p+".inflight_limit", "at most %d, got %d", MaxStreams, m.InflightLimit)
		case m.Slowdown.Max > MaxFactor:
			return field.Errorf(p+".slowdown.max", "at most %d, got %g", MaxFactor, m.Slowdown.Max)
		case m.Jitter.CV > MaxFactor: // a CV near MaxFloat64 makes σ infinite and a latency NaN
			return field.Errorf(p+".jitter.cv", "at most %d, got %g", MaxFactor, m.Jitter.CV)
		}
	}
	for i, e := range s.Events {
		for _, f := range []struct {
			name string
			v    *float64
		}{{"capacity", e.Capacity}, {"latency", e.Latency}} {
			if f.v != nil && *f.v > MaxFactor {
				return field.Errorf(fmt.Sprintf("events[%d].%s", i, f.name), "at most %d, got %g", MaxFactor, *f.v)
			}
		}
	}
	if m := s.Gateway.Retry.Multiplier; m > MaxFactor {
		return field.Errorf("gateway.retry.multiplier", "at most %d, got %g", MaxFactor, m)
	}
	for i, p := range s.Production {
		if p.Speedup > maxSpeedupFactor {
			return field.Errorf(fmt.Sprintf("production[%d].speedup", i), "at most %d, got %g", maxSpeedupFactor, p.Speedup)
		}
	}
	return field.Under("workload", validateWorkloadLimits(&s.Workload))
}

func validateWorkloadLimits(w *workloads.Config) error {
	for _, p := range []struct {
		name string
		bp   *workloads.BatchProcess
	}{{"batches", &w.Batches}, {"background", &w.Background}} {
		if p.bp.RatePerHour > MaxRatePerHour {
			return field.Errorf(p.name+".rate_per_hour", "at most %d, got %g", MaxRatePerHour, p.bp.RatePerHour)
		}
		if p.bp.RatePerHour > 0 || len(p.bp.Bursts) > 0 {
			if err := p.bp.Size.CheckAtMost(p.name+".size", workloads.MaxBatchSize); err != nil {
				return err
			}
		}
		for i, b := range p.bp.Bursts {
			if b.Batches > MaxBurstBatches {
				return field.Errorf(fmt.Sprintf("%s.bursts[%d].batches", p.name, i), "at most %d, got %d", MaxBurstBatches, b.Batches)
			}
		}
	}
	return nil
}
