package workloads

import (
	"math"
	"time"

	"github.com/evalsched/lab/internal/field"
)

// Limits of a behaviour's distributions. Validation refuses parameters
// beyond them, and the agent clamps any draw from a distribution's tail to
// them, so no count or token number overflows the simulator's integers and
// no duration its virtual clock.
const (
	MaxTurns       = 100_000    // turns of one job
	MaxFanout      = 10_000     // parallel calls of one turn
	MaxTokens      = 10_000_000 // prompt, output or tool tokens of one draw
	MaxToolSeconds = 86_400     // one tool step (a day)
	MaxBatchSize   = 10_000_000 // jobs of one batch
	maxContext     = 1 << 30    // input tokens of a call (int32-safe)
)

// MaxDuration is the longest span of a run (scenario.MaxDuration) and of a
// request trace (its last record after its first): one year. Virtual time
// is int64, and sums of a few such spans stay far from overflowing it.
const MaxDuration = 365 * 24 * time.Hour

// Bounds are the smallest and largest values the distribution's parameters
// allow: exact for fixed, uniform and bounded Pareto, the clip bounds (or
// the median/mean as the scale, with +Inf above unless clipped) for
// exponential and lognormal. Empirical columns come from a request trace
// and are bounded by its reader: 0 and MaxTokens.
func (d Dist) Bounds() (lo, hi float64) {
	switch d.Kind {
	case "fixed":
		return d.Value, d.Value
	case "uniform", "pareto":
		return d.Min, d.Max
	case "exponential", "lognormal":
		hi = max(d.Mean, d.Median)
		if d.Max > 0 {
			hi = d.Max
		}
		return d.Min, hi
	}
	return 0, MaxTokens
}

// CheckAtMost refuses a distribution whose parameters exceed limit.
func (d Dist) CheckAtMost(path string, limit float64) error {
	if _, hi := d.Bounds(); hi > limit {
		return field.Errorf(path, "at most %g, got %g (the limit guards the simulator's integers and clock)", limit, hi)
	}
	return nil
}

// checkCount refuses a count distribution that could draw below one or a
// fixed count that is not a whole number: they would be rounded silently.
func (d Dist) checkCount(path string, limit float64) error {
	lo, _ := d.Bounds()
	switch {
	case d.Kind == "fixed" && d.Value != math.Trunc(d.Value):
		return field.Errorf(path, "must be a whole number, got %g", d.Value)
	case (d.Kind == "fixed" || d.Kind == "uniform") && lo < 1:
		return field.Errorf(path, "must be at least 1, got %g", lo)
	}
	return d.CheckAtMost(path, limit)
}

// checkLimits checks the behaviour's distributions against the limits.
func (b *Behaviour) checkLimits(path string) error {
	checks := []struct {
		name  string
		d     Dist
		count bool
		limit float64
	}{
		{"turns", b.Turns, true, MaxTurns}, {"fanout", b.Fanout, true, MaxFanout},
		{"prompt_tokens", b.PromptTokens, false, MaxTokens}, {"output_tokens", b.OutputTokens, false, MaxTokens},
		{"tool_tokens", b.ToolTokens, false, MaxTokens}, {"tool_seconds", b.ToolSeconds, false, MaxToolSeconds},
	}
	if b.PhaseSwitch != nil {
		checks = append(checks, struct {
			name  string
			d     Dist
			count bool
			limit float64
		}{"phase_switch.fanout", b.PhaseSwitch.Fanout, true, MaxFanout})
	}
	for _, c := range checks {
		check := c.d.CheckAtMost
		if c.count {
			check = c.d.checkCount
		}
		if err := check(path+"."+c.name, c.limit); err != nil {
			return err
		}
	}
	return nil
}

// clampDraw bounds a draw to [0, limit] (NaN to 0).
func clampDraw(v, limit float64) float64 {
	if !(v > 0) {
		return 0
	}
	if v > limit { // v is a number here: min's NaN and signed-zero cases cannot arise
		return limit
	}
	return v
}

// roundClamped is int(math.Round(v)) for v in [0, 2^52], as clampDraw
// leaves a draw: v plus the float just below one half, truncated. The sum
// reaches the next integer exactly when v's fraction is one half or more
// (math.Round's half away from zero); with one half itself, the sum's
// rounding would take 0.49999999999999994 (the float below one half) up
// to 1. An add and a conversion, where math.Round's bit manipulation is
// no instruction on amd64 v1 (TestRoundClamped).
func roundClamped(v float64) int {
	return int(v + 0.49999999999999994)
}

// tokenDraw is a token count drawn as v: clamped to [0, MaxTokens] and
// rounded.
func tokenDraw(v float64) int { return roundClamped(clampDraw(v, MaxTokens)) }

// countDraw is a count drawn as v: clamped to [0, limit], rounded, at
// least 1 (atLeastOne of the clamped draw).
func countDraw(v, limit float64) int { return max(roundClamped(clampDraw(v, limit)), 1) }

// toolDuration converts a tool step's seconds to a duration, clamped.
func toolDuration(s float64) time.Duration {
	return time.Duration(clampDraw(s, MaxToolSeconds) * float64(time.Second))
}

// MaxLine is the longest line a trace may have: the readers refuse a
// longer one, so a writer (an importer) refuses to write one.
const MaxLine = maxLine
