package scenario

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/evalsched/lab/workloads"
)

// Budget bounds one run before it starts and while it runs. Zero fields
// mean no limit.
type Budget struct {
	MaxEvents uint64 // engine events of one run
	MaxMemory uint64 // estimated bytes of one run
}

// DefaultBudget lets the embedded scenarios and a 7-day scenario of some
// three million jobs run, and refuses runs that could not finish in
// practice or would exhaust a laptop's memory.
var DefaultBudget = Budget{MaxEvents: 2_000_000_000, MaxMemory: 8 << 30}

// Estimate is a rough upper-end size of one run, from the scenario alone.
type Estimate struct {
	Jobs, Calls, Events, Bytes float64
	Retries                    float64 // of Events: tries a retry storm could make
}

// Rough sizes of what a run keeps per item (bytes).
const (
	bytesPerJob      = 400 // job slot, policy index entry, id map entry, job times
	bytesPerSeries   = 96  // one series.csv row kept in memory
	bytesPerBatch    = 256 // batch progress and fairness tracking
	bytesPerModel    = 4096
	eventsPerJobBase = 3 // arrival, container ready, finish
)

// Estimate sizes a run of the scenario; with replay the jobs come from a
// trace (checked as it is read), so only the periodic events are counted.
func (s *Scenario) Estimate(replay bool) Estimate {
	var e Estimate
	hours := s.Duration.Hours()
	batches := 0.0
	if !replay {
		for _, bp := range []workloads.BatchProcess{s.Workload.Batches, s.Workload.Background} {
			n := bp.RatePerHour * hours
			for _, b := range bp.Bursts {
				n += float64(b.Batches)
			}
			if n > 0 {
				batches += n
				e.Jobs += n * max(bp.Size.MeanValue(), 1)
			}
		}
	}
	turns, calls, fanout := meanShape(&s.Workload)
	e.Calls = e.Jobs * calls
	e.Events = e.Jobs*(eventsPerJobBase+turns) + e.Calls
	secs := s.Duration.Seconds()
	models := float64(len(s.catalogue))
	periodic := secs/s.SeriesInterval.Seconds() + secs/s.Policies.Scheduler.Tick.Seconds() + float64(len(s.Events))
	if s.Gateway.DepthDelay > 0 {
		periodic += secs / s.Gateway.DepthSample.Seconds()
	}
	e.Retries = s.retryStorm(secs, fanout, e.Calls)
	e.Events += periodic + e.Retries
	points := secs / s.SeriesInterval.Seconds() * models
	e.Bytes = e.Jobs*bytesPerJob + points*bytesPerSeries + batches*bytesPerBatch + models*bytesPerModel
	return e
}

// retryStorm bounds the tries rejected calls could make when rejections
// are possible (quotas or an outage): every call a full container pool can
// hold retrying every retry.max for the whole run, or each call's
// max_attempts if that is less.
func (s *Scenario) retryStorm(secs, fanout, calls float64) float64 {
	rejects := false
	for _, o := range s.Organisations {
		rejects = rejects || o.RPM > 0 || o.TPM > 0 || o.RPD > 0 || o.TPD > 0
	}
	for _, ev := range s.Events {
		rejects = rejects || (ev.Capacity != nil && *ev.Capacity < 1)
	}
	if !rejects {
		return 0
	}
	r := s.Gateway.Retry
	n := float64(s.Containers.Capacity) * fanout * secs / r.Max.Seconds()
	if r.MaxAttempts > 0 {
		n = min(n, calls*float64(r.MaxAttempts))
	}
	return n
}

// meanShape is the mean turns and calls of a job over the behaviour mix
// (a graded job counted with its grading job), and the largest mean fan-out.
func meanShape(c *workloads.Config) (turns, calls, fanout float64) {
	total := 0.0
	for _, name := range slices.Sorted(maps.Keys(c.Behaviours)) {
		b := c.Behaviours[name]
		b.ApplyDefaults()
		w := 1.0
		if len(c.BehaviourMix) > 0 {
			w = c.BehaviourMix[name]
		}
		t, f := positive(b.Turns.MeanValue()), positive(b.Fanout.MeanValue())
		if b.PhaseSwitch != nil {
			f = max(f, positive(b.PhaseSwitch.Fanout.MeanValue()))
		}
		graded := 1.0
		if b.Grading != nil {
			graded += b.Grading.Probability
		}
		turns += w * t * graded
		calls += w * t * f * graded
		fanout = max(fanout, f)
		total += w
	}
	if total > 0 {
		turns, calls = turns/total, calls/total
	}
	return turns, calls, fanout
}

// positive is v, or 1 where v is not a positive number (a count is >= 1).
func positive(v float64) float64 {
	if !(v >= 1) || math.IsInf(v, 0) {
		return 1
	}
	return v
}

// BudgetError is a run refused before it starts, or stopped while it runs,
// for exceeding its Budget.
type BudgetError struct {
	What        string  // "events" or "memory"
	Size, Limit float64 // the estimate (or the count so far) and the limit
	// Running: the run was stopped at virtual time At; else it was refused
	// before it started.
	Running       bool
	At            time.Duration
	Flag, Details string
}

func (e *BudgetError) Error() string {
	if e.Running && e.Flag == "--max-memory" {
		return fmt.Sprintf("run stopped at virtual time %v: %s bytes of memory in use, over the budget of %s (%s); raise %s to let it go on",
			e.At, human(e.Size), human(e.Limit), e.Details, e.Flag)
	}
	if e.Running {
		return fmt.Sprintf("run stopped at virtual time %v after %.0f events: over the budget of %.0f (%s); raise %s to let it go on",
			e.At, e.Size, e.Limit, e.Details, e.Flag)
	}
	return fmt.Sprintf("run too big: about %s %s, over the limit of %s (%s); shorten the scenario or raise %s",
		human(e.Size), e.What, human(e.Limit), e.Details, e.Flag)
}

// human writes a size as 1.2e9-style engineering text.
func human(v float64) string {
	switch {
	case v >= 1<<30:
		return fmt.Sprintf("%.1f Gi", v/(1<<30))
	case v >= 1e6:
		return fmt.Sprintf("%.1f M", v/1e6)
	}
	return fmt.Sprintf("%.0f", v)
}

// SetBudget checks the scenario's estimate against b (replay: the jobs
// come from a trace) and keeps b for the in-run guard on events.
func (s *Scenario) SetBudget(b Budget, replay bool) error {
	e := s.Estimate(replay)
	details := fmt.Sprintf("%s jobs, %s calls, %s periodic and retry events", human(e.Jobs), human(e.Calls), human(e.Events-e.Calls-e.Jobs))
	if b.MaxEvents > 0 && e.Events > float64(b.MaxEvents) {
		if e.Retries > e.Events/2 {
			details += fmt.Sprintf("; %s of them retries: raise gateway.retry.max or set max_attempts", human(e.Retries))
		}
		return &BudgetError{What: "events", Size: e.Events, Limit: float64(b.MaxEvents), Flag: "--max-events", Details: details}
	}
	if b.MaxMemory > 0 && e.Bytes > float64(b.MaxMemory) {
		return &BudgetError{What: "bytes of memory", Size: e.Bytes, Limit: float64(b.MaxMemory), Flag: "--max-memory", Details: details}
	}
	s.RunBudget = b
	return nil
}
