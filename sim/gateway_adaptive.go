package sim

import (
	"time"

	"github.com/evalsched/lab/internal/field"
	"github.com/evalsched/lab/policies"
)

// AdaptiveLimitConfig turns the gateway's per-model in-flight limit into a
// loop of its own, replacing the hand-set inflight_limit (which becomes its
// starting value): AIMD on congestion. A call accepted by the provider with
// no free stream (it waits at the provider) or rejected with a 429 is a
// congestion signal: the limit is multiplied by decrease, at most once per
// window. Every call served at once adds increase / limit (so about
// increase per limit's worth of clean calls). The limit stays within
// [1, max_factor × inflight_limit].
type AdaptiveLimitConfig struct {
	Enabled   bool          `yaml:"enabled" json:"enabled"`
	Decrease  float64       `yaml:"decrease" json:"decrease,omitempty"`     // 0 → 0.9
	Increase  float64       `yaml:"increase" json:"increase,omitempty"`     // 0 → 4
	Window    time.Duration `yaml:"window" json:"window,omitempty"`         // 0 → 1s
	MaxFactor float64       `yaml:"max_factor" json:"max_factor,omitempty"` // 0 → 2
}

// StaleSpell is a time during which the gateway's metrics pipeline serves
// the reading it last served before From (a stalled pipeline).
type StaleSpell struct {
	From time.Duration `yaml:"from" json:"from"`
	To   time.Duration `yaml:"to" json:"to"`
}

func (a *AdaptiveLimitConfig) withDefaults() {
	if a.Decrease == 0 {
		a.Decrease = 0.9
	}
	if a.Increase == 0 {
		a.Increase = 4
	}
	if a.Window == 0 {
		a.Window = time.Second
	}
	if a.MaxFactor == 0 {
		a.MaxFactor = 2
	}
}

func (a *AdaptiveLimitConfig) check() error {
	switch {
	case !(a.Decrease > 0 && a.Decrease < 1):
		return field.Errorf("gateway.adaptive_limit.decrease", "must be within (0, 1), got %g", a.Decrease)
	case !(a.Increase > 0):
		return field.Errorf("gateway.adaptive_limit.increase", "must be > 0, got %g", a.Increase)
	case a.Window < 0:
		return field.Errorf("gateway.adaptive_limit.window", "must be > 0, got %v", a.Window)
	case !(a.MaxFactor >= 1):
		return field.Errorf("gateway.adaptive_limit.max_factor", "must be >= 1, got %g", a.MaxFactor)
	}
	return nil
}

func checkStaleSpells(ss []StaleSpell) error {
	for i, s := range ss {
		if s.From < 0 || s.To <= s.From {
			return field.Errorf("gateway.stale", "spell %d: want 0 <= from < to, got %v..%v", i, s.From, s.To)
		}
	}
	return nil
}

// adaptive is one lane's adaptive limit state.
type adaptive struct {
	credit  float64 // fractional increase not yet applied
	lastCut Time
	hi      int
}

// congested applies a congestion signal to model's limit.
func (g *Gateway) congested(model int32, now Time) {
	a := g.adapt
	if a == nil {
		return
	}
	l := &g.lanes[model]
	if l.ad.lastCut != 0 && now-l.ad.lastCut < FromDuration(a.Window) {
		return
	}
	l.ad.lastCut, l.ad.credit = now, 0
	l.limit = max(1, int(float64(l.limit)*a.Decrease))
}

// clean applies a call served at once to model's limit.
func (g *Gateway) clean(model int32) {
	a := g.adapt
	if a == nil {
		return
	}
	l := &g.lanes[model]
	l.ad.credit += a.Increase / float64(l.limit)
	if l.ad.credit >= 1 {
		l.limit = min(l.limit+int(l.ad.credit), l.ad.hi)
		l.ad.credit -= float64(int(l.ad.credit))
	}
}

// InflightLimit is model's gateway in-flight limit now.
func (g *Gateway) InflightLimit(model int32) int { return g.lanes[model].limit }

// answeredCall takes an evaluation call's time from creation to answer
// into the latency reading.
func (g *Gateway) answeredCall(model int32, took Time) {
	l := &g.lanes[model]
	l.latSum += took.Seconds()
	l.latN++
}

// stale reports whether now falls in a stale spell, and its start.
func (g *Gateway) stale(now Time) (Time, bool) {
	for _, s := range g.spells {
		if now >= FromDuration(s.From) && now < FromDuration(s.To) {
			return FromDuration(s.From), true
		}
	}
	return 0, false
}

// CallLatency implements policies.LatencySignals: the mean time from
// creation to answer of the model's evaluation calls answered since the
// previous reading, stamped with the depth reading's time (one metrics
// pipeline: stale together).
func (w *World) CallLatency(model policies.ModelID) (float64, time.Time) {
	l := &w.gw.lanes[model]
	_, asOf := w.GatewayDepth(model)
	if l.latN == 0 {
		return 0, time.Time{}
	}
	mean := l.latSum / float64(l.latN)
	l.latSum, l.latN = 0, 0
	return mean, asOf
}

// Throttled implements policies.LatencySignals: the model's evaluation
// tries rejected with a 429 since the start.
func (w *World) Throttled(model policies.ModelID) int64 { return w.gw.lanes[model].throttled }
