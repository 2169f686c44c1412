package policies

import (
	"maps"
	"math"
	"slices"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/evalsched/lab/internal/field"
	"github.com/evalsched/lab/internal/yamltree"
)

// StepMode is how the concurrency controller moves a limit by one step.
type StepMode string

const (
	// StepAdditive moves a limit by Step jobs.
	StepAdditive StepMode = "additive"
	// StepMultiplicative multiplies a limit by Factor to raise it and divides
	// it by Factor to lower it, rounding to the nearest job and moving it by
	// at least one job either way.
	StepMultiplicative StepMode = "multiplicative"
)

// StepModes are the step modes a config may name.
var StepModes = []StepMode{StepAdditive, StepMultiplicative}

func (m StepMode) String() string { return string(m) }

// UnmarshalYAML refuses a step mode other than additive or multiplicative
// where it is read.
func (m *StepMode) UnmarshalYAML(n *yaml.Node) (err error) {
	*m, err = yamltree.EnumOf(n, StepModes)
	return err
}

// Built-in defaults, used where a config leaves a field at its zero value.
const (
	DefaultSchedulerTick    = 10 * time.Second
	DefaultTargetDepth      = 8
	DefaultMinLimit         = 1
	DefaultMaxLimit         = 10000
	DefaultInitialLimit     = 4
	DefaultStep             = 1
	DefaultFactor           = 1.25
	DefaultTierShare        = 0.8
	DefaultRejectLowerAfter = 3
	DefaultQuotaDeadTime    = 2 * time.Minute
	defaultStaleAfterTick   = 3 // stale_after defaults to this many ticks
	defaultDeadTimeTicks    = 3 // dead_time defaults to this many ticks
	// DefaultController settles within minutes on backlogged lanes (docs/concepts/policies.md,
	// "Controllers"); "step" is the reference it is measured against.
	DefaultController = ControllerSlowStart
)

// SchedulerConfig configures the production scheduler. It is meant to be
// loaded from YAML or JSON; a field left at its zero value means "use the
// default", so a scenario sets only what it changes. WithDefaults spells the
// defaults out; per-model fields left at zero inherit the global ones. A
// decoder that can tell a written 0 from a field left out refuses the
// former with CheckWritten, so a written value is never swapped silently.
//
// Durations are time.Duration: a string such as "10s" in YAML, nanoseconds in
// JSON.
type SchedulerConfig struct {
	// Tick is the period of Decide (0 → 10s). The controller moves each
	// limit at most one step per tick.
	Tick time.Duration `yaml:"tick" json:"tick"`
	// TargetDepth is the gateway queue depth (calls waiting for the model)
	// the controller steers to (0 → 8; must be ≥ 1).
	TargetDepth int `yaml:"target_depth" json:"target_depth"`
	// DepthTolerance widens the hold band above the target: the limit is
	// lowered only when the depth exceeds TargetDepth+DepthTolerance
	// (0 → no band: lower on anything above the target).
	DepthTolerance int `yaml:"depth_tolerance" json:"depth_tolerance"`
	// MinLimit and MaxLimit bound every limit (0 → 1 and 10000).
	MinLimit int `yaml:"min_limit" json:"min_limit"`
	MaxLimit int `yaml:"max_limit" json:"max_limit"`
	// InitialLimit is every limit at start (0 → 4). A model inheriting it
	// gets it clamped into that model's [min_limit, max_limit].
	InitialLimit int `yaml:"initial_limit" json:"initial_limit"`
	// StepMode is "additive" (the default when empty) or "multiplicative".
	StepMode StepMode `yaml:"step_mode" json:"step_mode"`
	// Step is the additive step in jobs (0 → 1).
	Step int `yaml:"step" json:"step"`
	// Factor is the multiplicative step, > 1 (0 → 1.25).
	Factor float64 `yaml:"factor" json:"factor"`
	// Smoothing is the weight alpha of an exponentially weighted moving
	// average of the depth readings, in [0, 1]: 0 or 1 means no smoothing.
	Smoothing float64 `yaml:"smoothing" json:"smoothing"`
	// StaleAfter: a depth reading taken longer than this before now is
	// stale, and the controller holds (0 → 3 × Tick).
	StaleAfter time.Duration `yaml:"stale_after" json:"stale_after"`
	// DeadTime is how long after a job starts before its calls show in the
	// gateway depth (container startup plus the first call). The slowstart
	// controller, on first seeing the depth over target, backs off to the
	// limit that was in force this long before (0 → 3 × Tick; at most
	// 16 ticks).
	DeadTime time.Duration `yaml:"dead_time" json:"dead_time,omitempty"`
	// TierShare is the share of the slots left to it that the highest
	// backlogged tier takes, in (0, 1] (0 → 0.8; 1 means strict priority).
	TierShare float64 `yaml:"tier_share" json:"tier_share"`
	// Controller is the rule that moves the limits (empty → "slowstart");
	// see ControllerKind and the package documentation.
	Controller ControllerKind `yaml:"controller,omitempty" json:"controller,omitempty"`
	// IgnoreQuota turns the quota signal off (a negative control): the
	// limit follows the depth alone, even while the model is rejected.
	IgnoreQuota bool `yaml:"ignore_quota" json:"ignore_quota,omitempty"`
	// RejectLowerAfter: with 429s on a model at this many ticks in a row,
	// its limit is lowered one step per tick (0 → 3).
	RejectLowerAfter int `yaml:"reject_lower_after" json:"reject_lower_after,omitempty"`
	// JobRateHold, if set, is the half-life of the held per-job use of the
	// per-minute quota windows (see rateHold): the headroom rule then
	// projects a raise at the highest share of a window one job was seen
	// to use, decaying with this half-life, instead of the share the
	// lane's jobs use now. 0 (the default) keeps no hold.
	JobRateHold time.Duration `yaml:"job_rate_hold" json:"job_rate_hold,omitempty"`
	// QuotaDeadTime is the dead time of the quota signal: once one of a
	// model's quota windows is a third full, its limit grows at most
	// ×factor per QuotaDeadTime (a window shows a raise a minute late, and
	// young agent jobs grow into their share of it over minutes), instead
	// of per DeadTime (0 → 2m, or DeadTime if longer; shorter than DeadTime
	// is refused).
	QuotaDeadTime time.Duration `yaml:"quota_dead_time" json:"quota_dead_time,omitempty"`
	// Models overrides the limits and target per model name.
	Models map[string]ModelLimits `yaml:"models,omitempty" json:"models,omitempty"`
}

// ModelLimits overrides the global controller settings for one model. A zero
// field inherits the global value.
type ModelLimits struct {
	TargetDepth  int `yaml:"target_depth,omitempty" json:"target_depth,omitempty"`
	MinLimit     int `yaml:"min_limit,omitempty" json:"min_limit,omitempty"`
	MaxLimit     int `yaml:"max_limit,omitempty" json:"max_limit,omitempty"`
	InitialLimit int `yaml:"initial_limit,omitempty" json:"initial_limit,omitempty"`
}

// DefaultSchedulerConfig is the config with every default spelled out.
func DefaultSchedulerConfig() SchedulerConfig {
	return SchedulerConfig{}.WithDefaults()
}

// WithDefaults returns c with every zero global field replaced by its default.
// Per-model overrides are left as they are (zero = inherit); ForModel
// resolves them. Negative values are kept, for Validate to report.
func (c SchedulerConfig) WithDefaults() SchedulerConfig {
	if c.Tick == 0 {
		c.Tick = DefaultSchedulerTick
	}
	if c.TargetDepth == 0 {
		c.TargetDepth = DefaultTargetDepth
	}
	if c.MinLimit == 0 {
		c.MinLimit = DefaultMinLimit
	}
	if c.MaxLimit == 0 {
		c.MaxLimit = DefaultMaxLimit
	}
	if c.InitialLimit == 0 {
		c.InitialLimit = min(max(DefaultInitialLimit, c.MinLimit), c.MaxLimit)
	}
	if c.StepMode == "" {
		c.StepMode = StepAdditive
	}
	if c.Step == 0 {
		c.Step = DefaultStep
	}
	if c.Factor == 0 {
		c.Factor = DefaultFactor
	}
	if c.RejectLowerAfter == 0 {
		c.RejectLowerAfter = DefaultRejectLowerAfter
	}
	if c.Controller == "" {
		c.Controller = DefaultController
	}
	if c.DeadTime == 0 && c.Tick > 0 {
		c.DeadTime = defaultDeadTimeTicks * c.Tick
	}
	if c.QuotaDeadTime == 0 {
		c.QuotaDeadTime = max(DefaultQuotaDeadTime, c.DeadTime)
	}
	if c.StaleAfter == 0 && c.Tick > 0 {
		c.StaleAfter = defaultStaleAfterTick * c.Tick
	}
	if c.TierShare == 0 {
		c.TierShare = DefaultTierShare
	}
	return c
}

// ForModel resolves the effective settings of one model: the model's own
// overrides over the global values over the defaults. An inherited initial
// limit is clamped into the model's range; an explicit one is not (Validate
// reports it).
func (c SchedulerConfig) ForModel(name string) ModelLimits {
	c = c.WithDefaults()
	o := c.Models[name]
	r := ModelLimits{TargetDepth: c.TargetDepth, MinLimit: c.MinLimit, MaxLimit: c.MaxLimit}
	if o.TargetDepth != 0 {
		r.TargetDepth = o.TargetDepth
	}
	if o.MinLimit != 0 {
		r.MinLimit = o.MinLimit
	}
	if o.MaxLimit != 0 {
		r.MaxLimit = o.MaxLimit
	}
	if o.InitialLimit != 0 {
		r.InitialLimit = o.InitialLimit
	} else {
		r.InitialLimit = min(max(c.InitialLimit, r.MinLimit), r.MaxLimit)
	}
	return r
}

// Validate checks the config, with defaults applied, against the model
// catalogue. Errors name the field at fault, e.g.
// "models.gpt-5.5.min_limit: must be <= max_limit (3 > 2)".
func (c SchedulerConfig) Validate(models []string) error {
	c = c.WithDefaults()
	if c.Tick < 0 {
		return field.Errorf("tick", "must be > 0, got %v", c.Tick)
	}
	if c.TargetDepth < 1 {
		return field.Errorf("target_depth", "must be >= 1, got %d", c.TargetDepth)
	}
	if c.DepthTolerance < 0 {
		return field.Errorf("depth_tolerance", "must be >= 0, got %d", c.DepthTolerance)
	}
	if c.MinLimit < 1 {
		return field.Errorf("min_limit", "must be >= 1, got %d", c.MinLimit)
	}
	if c.MaxLimit < 1 {
		return field.Errorf("max_limit", "must be >= 1, got %d", c.MaxLimit)
	}
	if c.MinLimit > c.MaxLimit {
		return field.Errorf("min_limit", "must be <= max_limit (%d > %d)", c.MinLimit, c.MaxLimit)
	}
	if c.InitialLimit < c.MinLimit || c.InitialLimit > c.MaxLimit {
		return field.Errorf("initial_limit", "must be within [min_limit, max_limit] = [%d, %d], got %d",
			c.MinLimit, c.MaxLimit, c.InitialLimit)
	}
	switch c.StepMode {
	case StepAdditive, StepMultiplicative:
	default:
		return field.Errorf("step_mode", "must be %q or %q, got %q", StepAdditive, StepMultiplicative, c.StepMode)
	}
	if c.QuotaDeadTime < c.DeadTime {
		return field.Errorf("quota_dead_time", "must be >= dead_time (%v), got %v", c.DeadTime, c.QuotaDeadTime)
	}
	if c.JobRateHold < 0 {
		return field.Errorf("job_rate_hold", "must be >= 0, got %v", c.JobRateHold)
	}
	if c.RejectLowerAfter < 1 {
		return field.Errorf("reject_lower_after", "must be >= 1 tick, got %d", c.RejectLowerAfter)
	}
	if c.Step < 1 {
		return field.Errorf("step", "must be >= 1, got %d", c.Step)
	}
	if !(c.Factor > 1) || math.IsInf(c.Factor, 0) {
		return field.Errorf("factor", "must be > 1, got %g", c.Factor)
	}
	if !(c.Smoothing >= 0 && c.Smoothing <= 1) {
		return field.Errorf("smoothing", "must be within [0, 1] (0 or 1 = off), got %g", c.Smoothing)
	}
	if c.StaleAfter < 0 {
		return field.Errorf("stale_after", "must be > 0, got %v", c.StaleAfter)
	}
	if c.DeadTime < 0 || (c.Tick > 0 && c.DeadTime > slowMaxLookback*c.Tick) {
		return field.Errorf("dead_time", "must be within [0, %d ticks], got %v", slowMaxLookback, c.DeadTime)
	}
	if c.Controller != "" && !slices.Contains(Controllers, c.Controller) {
		return field.Errorf("controller", "must be one of %v, got %q", Controllers, c.Controller)
	}
	if !(c.TierShare > 0 && c.TierShare <= 1) {
		return field.Errorf("tier_share", "must be within (0, 1], got %g", c.TierShare)
	}
	return c.validateModels(models)
}

// validateModels checks the per-model overrides of c, defaults applied, in
// name order so the first error reported does not depend on map order.
func (c SchedulerConfig) validateModels(models []string) error {
	known := make(map[string]bool, len(models))
	for _, m := range models {
		known[m] = true
	}
	for _, name := range slices.Sorted(maps.Keys(c.Models)) {
		o := c.Models[name]
		p := "models." + name
		if !known[name] {
			return field.Errorf(p, "unknown model %q", name)
		}
		for _, f := range []struct {
			name string
			v    int
		}{{"target_depth", o.TargetDepth}, {"min_limit", o.MinLimit}, {"max_limit", o.MaxLimit}, {"initial_limit", o.InitialLimit}} {
			if f.v < 0 {
				return field.Errorf(p+"."+f.name, "must be >= 1 (left out: inherit), got %d", f.v)
			}
		}
		r := c.ForModel(name)
		if r.MinLimit > r.MaxLimit {
			return field.Errorf(p+".min_limit", "must be <= max_limit (%d > %d)", r.MinLimit, r.MaxLimit)
		}
		if r.InitialLimit < r.MinLimit || r.InitialLimit > r.MaxLimit {
			return field.Errorf(p+".initial_limit", "must be within [min_limit, max_limit] = [%d, %d], got %d",
				r.MinLimit, r.MaxLimit, r.InitialLimit)
		}
	}
	return nil
}

// CheckWritten refuses a field the source wrote as 0 where 0 breaks the
// field's rule: WithDefaults (and ForModel, for a model's overrides) reads
// 0 as "left out" and would put the default in its place, so the value
// written would silently not be the value run. written reports whether the
// source set the field at a path of keys, e.g. ("models", "gpt-5.5",
// "target_depth"); only a decoder that keeps the document can tell.
func (c SchedulerConfig) CheckWritten(written func(keys ...string) bool) error {
	for _, f := range []struct {
		key, rule string
		zero      bool
	}{
		{"tick", "must be > 0", c.Tick == 0},
		{"target_depth", "must be >= 1", c.TargetDepth == 0},
		{"min_limit", "must be >= 1", c.MinLimit == 0},
		{"max_limit", "must be >= 1", c.MaxLimit == 0},
		{"initial_limit", "must be within [min_limit, max_limit]", c.InitialLimit == 0},
		{"step", "must be >= 1", c.Step == 0},
		{"factor", "must be > 1", c.Factor == 0},
		{"stale_after", "must be > 0", c.StaleAfter == 0},
		{"dead_time", "must be > 0 (leave it out for 3 ticks)", c.DeadTime == 0},
		{"quota_dead_time", "must be >= dead_time", c.QuotaDeadTime == 0},
		{"tier_share", "must be within (0, 1]", c.TierShare == 0},
		{"reject_lower_after", "must be >= 1 tick", c.RejectLowerAfter == 0},
	} {
		if f.zero && written(f.key) {
			return field.Errorf(f.key, "%s, got 0 (leave the field out for the default)", f.rule)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(c.Models)) {
		o := c.Models[name]
		for _, f := range []struct {
			key  string
			zero bool
		}{{"target_depth", o.TargetDepth == 0}, {"min_limit", o.MinLimit == 0}, {"max_limit", o.MaxLimit == 0}, {"initial_limit", o.InitialLimit == 0}} {
			if f.zero && written("models", name, f.key) {
				return field.Errorf("models."+name+"."+f.key, "must be >= 1, got 0 (leave the field out to inherit)")
			}
		}
	}
	return nil
}
