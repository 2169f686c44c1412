package policies

import (
	"fmt"
	"time"

	"github.com/evalsched/lab/internal/field"
)

// GuardConfig configures the guards that can be worn by any policy
// (Guard): a circuit breaker on quota use and a code-level cap on running
// evaluation jobs. The zero value wears none.
type GuardConfig struct {
	// Breaker, if set, defers every start while a quota is too full.
	Breaker *BreakerConfig `yaml:"breaker" json:"breaker,omitempty"`
	// MaxJobs, if positive, caps the evaluation jobs running at once over
	// all models (a worker-pool cap).
	MaxJobs int `yaml:"max_jobs" json:"max_jobs,omitempty"`
}

// BreakerConfig is a circuit breaker with hysteresis: it opens when the
// fullest quota window of any dimension on any model (all its traffic, or
// production's alone with ProductionOnly) passes Open, and closes when it
// falls below Close. While open, no job starts: they are deferred.
type BreakerConfig struct {
	Open           float64 `yaml:"open" json:"open"`   // 0 → 0.7
	Close          float64 `yaml:"close" json:"close"` // 0 → 0.6
	ProductionOnly bool    `yaml:"production_only" json:"production_only,omitempty"`
}

// Defaults of the guards.
const (
	DefaultBreakerOpen  = 0.7
	DefaultBreakerClose = 0.6
)

// Active reports whether any guard is configured.
func (c GuardConfig) Active() bool { return c.Breaker != nil || c.MaxJobs > 0 }

// WithDefaults fills the breaker's thresholds left at zero.
func (c GuardConfig) WithDefaults() GuardConfig {
	if b := c.Breaker; b != nil {
		cp := *b
		if cp.Open == 0 {
			cp.Open = DefaultBreakerOpen
		}
		if cp.Close == 0 {
			cp.Close = min(DefaultBreakerClose, cp.Open)
		}
		c.Breaker = &cp
	}
	return c
}

// CheckWritten refuses a breaker threshold the source wrote as 0, which
// WithDefaults would replace by its default (see
// SchedulerConfig.CheckWritten for written).
func (c GuardConfig) CheckWritten(written func(keys ...string) bool) error {
	if b := c.Breaker; b != nil {
		if b.Open == 0 && written("breaker", "open") {
			return field.Errorf("breaker.open", "must be in (0, 1], got 0 (leave the field out for %g)", DefaultBreakerOpen)
		}
		if b.Close == 0 && written("breaker", "close") {
			return field.Errorf("breaker.close", "must be in (0, open], got 0 (leave the field out for min(%g, open))", DefaultBreakerClose)
		}
	}
	return nil
}

// Validate checks the guards; errors are *field.Error at the key.
func (c GuardConfig) Validate() error {
	if c.MaxJobs < 0 {
		return field.Errorf("max_jobs", "must be >= 0 (0 = no cap), got %d", c.MaxJobs)
	}
	if b := c.Breaker; b != nil {
		switch {
		case !(b.Open > 0 && b.Open <= 1):
			return field.Errorf("breaker.open", "must be in (0, 1], got %g", b.Open)
		case !(b.Close > 0 && b.Close <= b.Open):
			return field.Errorf("breaker.close", "must be in (0, open=%g], got %g", b.Open, b.Close)
		}
	}
	return nil
}

// Guard wraps a policy with guards. It is itself a Policy with the inner
// policy's name and trigger: it narrows the State the inner policy sees —
// no free containers while the breaker is open, no more than the worker
// cap allows — so any policy can wear it, without knowing. The inner
// policy sees exactly the optional signals (QuotaState, LatencySignals)
// the caller offers, and the Guard offers DepthTargets when the inner
// policy does.
type Guard struct {
	inner  Policy
	cfg    GuardConfig
	models int
	open   bool
	last   time.Time
	stats  GuardStats
	view   guardViews
	err    error // the first plan past the guards
}

// GuardStats is what the guards did.
type GuardStats struct {
	// DeferredTicks counts decisions with the breaker open and jobs waiting.
	DeferredTicks int64
	// OpenTime is how long the breaker was open (between decisions).
	OpenTime time.Duration
	// Trips counts the times the breaker opened.
	Trips int64
}

// NewGuard wraps inner, deciding over models models, with cfg's guards
// (defaults applied).
func NewGuard(inner Policy, cfg GuardConfig, models int) *Guard {
	return &Guard{inner: inner, cfg: cfg.WithDefaults(), models: models}
}

func (g *Guard) Name() string                                { return g.inner.Name() }
func (g *Guard) Trigger() Trigger                            { return g.inner.Trigger() }
func (g *Guard) Enqueue(now time.Time, job Job)              { g.inner.Enqueue(now, job) }
func (g *Guard) Finished(now time.Time, id JobID, m ModelID) { g.inner.Finished(now, id, m) }
func (g *Guard) Waiting() int                                { return g.inner.Waiting() }

// Inner is the wrapped policy.
func (g *Guard) Inner() Policy { return g.inner }

// Stats is what the guards did so far.
func (g *Guard) Stats() GuardStats { return g.stats }

// Open reports whether the breaker is open.
func (g *Guard) Open() bool { return g.open }

// Decide updates the breaker from the quota readings (a State without
// QuotaState never trips it), then lets the inner policy decide on the
// narrowed State. A plan starting more jobs than the narrowed State has
// free breaks the guards: it starts nothing, and the Guard fails (Err)
// naming the policy, the decision and the rule; a failed Guard starts
// nothing more.
func (g *Guard) Decide(now time.Time, state State, plan *Plan) {
	if g.err != nil {
		return
	}
	if g.open && !g.last.IsZero() {
		g.stats.OpenTime += now.Sub(g.last)
	}
	g.last = now
	if b := g.cfg.Breaker; b != nil {
		if qs, ok := state.(QuotaState); ok {
			use := g.fullest(qs, b.ProductionOnly)
			switch {
			case !g.open && use > b.Open:
				g.open = true
				g.stats.Trips++
			case g.open && use < b.Close:
				g.open = false
			}
		}
	}
	if g.open && g.inner.Waiting() > 0 {
		g.stats.DeferredTicks++
	}
	free, before := g.free(state), len(plan.Start)
	g.inner.Decide(now, g.view.of(state, free), plan)
	if n := len(plan.Start) - before; n > free {
		plan.Start = plan.Start[:before]
		g.err = fmt.Errorf("policy %s: decision at %s: the plan starts %d jobs, more than the %d the guards leave free (%s)",
			g.inner.Name(), now.UTC().Format(time.RFC3339Nano), n, free, g.rule(state))
	}
}

// rule says why the guards leave what they leave free.
func (g *Guard) rule(state State) string {
	if g.open {
		return "guards.breaker is open"
	}
	running := 0
	for m := 0; m < g.models; m++ {
		running += state.Running(ModelID(m))
	}
	if g.cfg.MaxJobs > 0 && g.cfg.MaxJobs-running < state.FreeContainers() {
		return fmt.Sprintf("guards.max_jobs %d, %d running", g.cfg.MaxJobs, running)
	}
	return fmt.Sprintf("%d free containers", state.FreeContainers())
}

// TargetDepths implements DepthTargets for an inner policy that keeps
// targets; nil otherwise.
func (g *Guard) TargetDepths() []float64 {
	if t, ok := g.inner.(DepthTargets); ok {
		return t.TargetDepths()
	}
	return nil
}

// Err implements Fallible: the first plan past the guards, or the error of
// an inner policy that can fail; nil otherwise.
func (g *Guard) Err() error {
	if g.err != nil {
		return g.err
	}
	if f, ok := g.inner.(Fallible); ok {
		return f.Err()
	}
	return nil
}

// Close closes an inner policy that holds resources (an io.Closer, such as
// a policy in another process); nil otherwise.
func (g *Guard) Close() error {
	if c, ok := g.inner.(interface{ Close() error }); ok {
		return c.Close()
	}
	return nil
}

// fullest is the largest quota share of any dimension on any model.
func (g *Guard) fullest(qs QuotaState, productionOnly bool) float64 {
	u := 0.0
	for m := 0; m < g.models; m++ {
		r := qs.Quota(ModelID(m))
		use := r.Use
		if productionOnly {
			use = r.ProductionUse
		}
		for _, x := range use {
			u = max(u, x)
		}
	}
	return u
}

// free is the containers the inner policy may use: none while the breaker
// is open, and no more than the worker cap leaves.
func (g *Guard) free(state State) int {
	if g.open {
		return 0
	}
	free := state.FreeContainers()
	if g.cfg.MaxJobs > 0 {
		running := 0
		for m := 0; m < g.models; m++ {
			running += state.Running(ModelID(m))
		}
		free = min(free, max(g.cfg.MaxJobs-running, 0))
	}
	return free
}

// guardedState is the State the inner policy sees: the caller's, with the
// guards' free containers.
type guardedState struct {
	State
	free int
}

func (s *guardedState) FreeContainers() int { return s.free }

// The caller's optional signals, passed through by the views that offer
// them.
type (
	guardedQuota struct {
		guardedState
		QuotaState
	}
	guardedLatency struct {
		guardedState
		LatencySignals
	}
	guardedBoth struct {
		guardedState
		QuotaState
		LatencySignals
	}
)

// The promoted State methods of the embedded signal interfaces are shadowed
// by guardedState's (the narrowed free containers).
func (s *guardedQuota) Running(m ModelID) int { return s.guardedState.Running(m) }
func (s *guardedQuota) GatewayDepth(m ModelID) (int, time.Time) {
	return s.guardedState.GatewayDepth(m)
}
func (s *guardedQuota) FreeContainers() int     { return s.free }
func (s *guardedLatency) Running(m ModelID) int { return s.guardedState.Running(m) }
func (s *guardedLatency) GatewayDepth(m ModelID) (int, time.Time) {
	return s.guardedState.GatewayDepth(m)
}
func (s *guardedLatency) FreeContainers() int                  { return s.free }
func (s *guardedBoth) Running(m ModelID) int                   { return s.guardedState.Running(m) }
func (s *guardedBoth) GatewayDepth(m ModelID) (int, time.Time) { return s.guardedState.GatewayDepth(m) }
func (s *guardedBoth) FreeContainers() int                     { return s.free }

// guardViews keeps one view of each shape, reused at every decision.
type guardViews struct {
	plain   guardedState
	quota   guardedQuota
	latency guardedLatency
	both    guardedBoth
}

// of is the view of state with free containers, offering exactly the
// optional signals state offers.
func (v *guardViews) of(state State, free int) State {
	base := guardedState{State: state, free: free}
	qs, hasQuota := state.(QuotaState)
	ls, hasLatency := state.(LatencySignals)
	switch {
	case hasQuota && hasLatency:
		v.both = guardedBoth{guardedState: base, QuotaState: qs, LatencySignals: ls}
		return &v.both
	case hasQuota:
		v.quota = guardedQuota{guardedState: base, QuotaState: qs}
		return &v.quota
	case hasLatency:
		v.latency = guardedLatency{guardedState: base, LatencySignals: ls}
		return &v.latency
	}
	v.plain = base
	return &v.plain
}
