package scenario

import (
	"time"

	"github.com/evalsched/lab/internal/field"
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
