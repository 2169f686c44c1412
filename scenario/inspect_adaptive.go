package scenario

import (
	"time"

	"github.com/evalsched/lab/internal/field"
)

// InspectAdaptiveConfig makes each model's gateway in-flight limit follow
// the evaluation harness inspect_ai's adaptive connections controller
// (src/inspect_ai/util/_concurrency.py AdaptiveConcurrencyController and
// design/adaptive-concurrency.md, 0.3.217 … 0.3.241, read 2026-12-06),
// starting at the model's inflight_limit: slow start doubles the limit
// after each round of max(limit, 4) clean calls (answered on their first
// try) until the first rate-limit; after it a round adds max(1,
// round(limit × scale_up)) rounded up to a multiple of 5 above 10. A round
// counts only if the calls in flight reached 0.8 of the limit during it.
// A 429 cuts the limit to limit × decrease rounded down likewise (at least
// min), at most once per cooldown, during which successes are not
// counted; every 429 restarts the round. The limit stays within [min, max].
type InspectAdaptiveConfig struct {
	Min      int           `yaml:"min" json:"min"`                     // 0 → 10 (0.3.240; 4 before)
	Max      int           `yaml:"max" json:"max"`                     // 0 → 100
	Cooldown time.Duration `yaml:"cooldown" json:"cooldown,omitempty"` // 0 → 15s
	Decrease float64       `yaml:"decrease" json:"decrease,omitempty"` // 0 → 0.8
	ScaleUp  float64       `yaml:"scale_up" json:"scale_up,omitempty"` // 0 → 0.05
}

func (a *InspectAdaptiveConfig) withDefaults() {
	if a.Min == 0 {
		a.Min = 10
	}
	if a.Max == 0 {
		a.Max = 100
	}
	if a.Cooldown == 0 {
		a.Cooldown = 15 * time.Second
	}
	if a.Decrease == 0 {
		a.Decrease = 0.8
	}
	if a.ScaleUp == 0 {
		a.ScaleUp = 0.05
	}
}

func (a *InspectAdaptiveConfig) check() error {
	switch {
	case a.Min < 1:
		return field.Errorf("gateway.inspect_adaptive.min", "must be >= 1, got %d", a.Min)
	case a.Max < a.Min:
		return field.Errorf("gateway.inspect_adaptive.max", "must be >= min %d, got %d", a.Min, a.Max)
	case a.Cooldown < 0:
		return field.Errorf("gateway.inspect_adaptive.cooldown", "must be >= 0, got %v", a.Cooldown)
	case !(a.Decrease > 0 && a.Decrease < 1):
		return field.Errorf("gateway.inspect_adaptive.decrease", "must be within (0, 1), got %g", a.Decrease)
	case !(a.ScaleUp > 0 && a.ScaleUp <= 1):
		return field.Errorf("gateway.inspect_adaptive.scale_up", "must be within (0, 1], got %g", a.ScaleUp)
	}
	return nil
}
