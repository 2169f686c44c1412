package scenario

import (
	"maps"
	"math"
	"slices"
	"time"

	"github.com/evalsched/lab/internal/field"
	"go.yaml.in/yaml/v3"
)

// BatchConfig is an organisation's batch API (organisations[].batch): a
// pool of its own that holds requests from when they are enqueued until
// they complete or expire, limited in requests and input tokens enqueued
// (0: no limit), a price factor on the model's token prices, and a
// completion window. Jobs of a class with batch: true on a model billing
// to the organisation are sent there instead of the gateway and a
// container (workloads.Behaviour.Batch).
//
// When within the window a request completes is drawn per request from a
// stream of its own (seeded by the run's seed and the organisation's
// name): lognormal with the given median and sigma from its enqueueing; a
// draw beyond the window expires it at the window's end (no result, not
// billed). This is an assumption (A) for every provider: neither page
// states a distribution (see the presets).
type BatchConfig struct {
	Preset BatchPreset `yaml:"preset" json:"preset,omitempty"`
	// Scope is what one pool serves: the organisation, or each model apart.
	Scope            BatchScope    `yaml:"scope" json:"scope,omitempty"`
	EnqueuedRequests float64       `yaml:"enqueued_requests" json:"enqueued_requests,omitempty"`
	EnqueuedTokens   float64       `yaml:"enqueued_tokens" json:"enqueued_tokens,omitempty"`
	PriceFactor      float64       `yaml:"price_factor" json:"price_factor,omitempty"`
	Window           time.Duration `yaml:"window" json:"window,omitempty"`
	Median           time.Duration `yaml:"median" json:"median,omitempty"`
	// Sigma is the completion time's log-sd (unset: the preset's, else 1;
	// 0 is valid: every request completes at the median).
	Sigma *float64 `yaml:"sigma" json:"sigma,omitempty"`
}

// SigmaValue is Sigma after defaults.
func (b *BatchConfig) SigmaValue() float64 { return deref(b.Sigma, 1) }

// BatchPreset names a provider's batch API whose documented rules a batch
// block takes.
type BatchPreset uint8

const (
	BatchPresetNone BatchPreset = iota
	BatchPresetAnthropic
	BatchPresetOpenAI
	numBatchPresets
)

var batchPresetNames = [numBatchPresets]string{"", "anthropic", "openai"}

func (p BatchPreset) String() string               { return batchPresetNames[p] }
func (p BatchPreset) MarshalText() ([]byte, error) { return []byte(p.String()), nil }
func (p *BatchPreset) UnmarshalText(b []byte) error {
	return parseEnum(p, string(b), batchPresetNames[1:], 1)
}
func (p *BatchPreset) UnmarshalYAML(n *yaml.Node) error { return p.UnmarshalText([]byte(n.Value)) }

// BatchScope is what one batch pool serves.
type BatchScope uint8

const (
	BatchScopeDefault BatchScope = iota // the preset's, else the organisation
	BatchScopeOrganisation
	BatchScopeModel
	numBatchScopes
)

var batchScopeNames = [numBatchScopes]string{"", "organisation", "model"}

func (s BatchScope) String() string               { return batchScopeNames[s] }
func (s BatchScope) MarshalText() ([]byte, error) { return []byte(s.String()), nil }
func (s *BatchScope) UnmarshalText(b []byte) error {
	return parseEnum(s, string(b), batchScopeNames[1:], 1)
}
func (s *BatchScope) UnmarshalYAML(n *yaml.Node) error { return s.UnmarshalText([]byte(n.Value)) }

// The batch presets. Limits are never preset (they depend on the tier).
//
// anthropic — https://docs.anthropic.com/en/docs/build-with-claude/batch-processing
// (read 2026-12-01):
//   - "All usage is charged at 50% of the standard API prices"
//     (price_factor 0.5).
//   - A batch "may take up to 24 hours"; a batch not done within 24 hours
//     expires (window 24h).
//   - "most batches finishing in less than 1 hour": A, median 20m and
//     sigma 1 (86% within the hour, 1 in 100,000 beyond 24 h).
//   - Rate limits apply to the Batches API's HTTP requests and to "the
//     number of requests within a batch waiting to be processed", per
//     organisation (scope organisation; the value per tier is on
//     https://docs.anthropic.com/en/api/rate-limits, A: not checked
//     offline, the scenario sets enqueued_requests).
//
// openai — https://platform.openai.com/docs/guides/batch (read 2026-12-01,
// quoted in https://community.openai.com/t/rate-limits-for-batch-api/882493):
//   - "50% lower costs" (price_factor 0.5) and a 24 h completion window
//     (window 24h); requests not completed in it expire.
//   - "Batch API rate limits are separate from existing per-model rate
//     limits"; the limit is "enqueued prompt tokens per model" (scope
//     model; values on the organisation's settings page, A: the scenario
//     sets enqueued_tokens); "no limits for output tokens or number of
//     submitted requests".
//   - A: completion times as anthropic's (the page states none).
var batchPresets = [numBatchPresets]BatchConfig{
	BatchPresetAnthropic: {Scope: BatchScopeOrganisation, PriceFactor: 0.5, Window: 24 * time.Hour, Median: 20 * time.Minute, Sigma: ptrTo(1.0)},
	BatchPresetOpenAI:    {Scope: BatchScopeModel, PriceFactor: 0.5, Window: 24 * time.Hour, Median: 20 * time.Minute, Sigma: ptrTo(1.0)},
}

// Defaults of a batch block without a preset: the anthropic preset's
// rules, scope organisation.
var batchDefaults = BatchConfig{Scope: BatchScopeOrganisation, PriceFactor: 0.5, Window: 24 * time.Hour, Median: 20 * time.Minute, Sigma: ptrTo(1.0)}

// applyDefaults fills the keys left unset from the preset, else the defaults.
func (b *BatchConfig) applyDefaults() {
	d := batchDefaults
	if b.Preset != BatchPresetNone {
		d = batchPresets[b.Preset]
	}
	if b.Scope == BatchScopeDefault {
		b.Scope = d.Scope
	}
	if b.PriceFactor == 0 {
		b.PriceFactor = d.PriceFactor
	}
	if b.Window == 0 {
		b.Window = d.Window
	}
	if b.Median == 0 {
		b.Median = d.Median
	}
	if b.Sigma == nil {
		b.Sigma = ptrTo(*d.Sigma)
	}
}

// validate checks a batch block at path p (defaults applied).
func (b *BatchConfig) validate(p string) error {
	for _, c := range []struct {
		key string
		v   float64
	}{{"enqueued_requests", b.EnqueuedRequests}, {"enqueued_tokens", b.EnqueuedTokens}} {
		if !(c.v >= 0) || c.v != math.Trunc(c.v) || c.v > 1<<53 {
			return field.Errorf(p+"."+c.key, "must be a whole number >= 0 (0 = no limit), got %g", c.v)
		}
	}
	switch {
	case !(b.PriceFactor > 0) || math.IsInf(b.PriceFactor, 0):
		return field.Errorf(p+".price_factor", "must be > 0 (a share of the model's prices), got %g", b.PriceFactor)
	case b.Window <= 0 || b.Window > 7*24*time.Hour:
		return field.Errorf(p+".window", "must be in (0, 168h], got %v", b.Window)
	case b.Median <= 0:
		return field.Errorf(p+".median", "must be > 0, got %v", b.Median)
	case !(b.SigmaValue() >= 0) || b.SigmaValue() > 10:
		return field.Errorf(p+".sigma", "must be in [0, 10], got %g", b.SigmaValue())
	}
	return nil
}

// checkBatchClasses refuses a batch class (behaviours.X.batch) that can
// land on a model whose evaluation calls bill to an organisation without a
// batch API: as a grading behaviour, its judge's; in the behaviour mix, any
// model the workload draws (so every hot and tail model must have one).
func (s *Scenario) checkBatchClasses() error {
	batchOrg := func(model string) bool {
		for i := range s.catalogue {
			m := &s.catalogue[i]
			if m.Name != model {
				continue
			}
			org := m.Org
			if m.EvalOrg != "" {
				org = m.EvalOrg
			}
			for k := range s.Organisations {
				if s.Organisations[k].Name == org {
					return s.Organisations[k].Batch != nil
				}
			}
		}
		return false
	}
	for _, name := range slices.Sorted(maps.Keys(s.Workload.Behaviours)) {
		b := s.Workload.Behaviours[name]
		g := b.Grading
		if g == nil {
			continue
		}
		jb, ok := s.Workload.Behaviours[g.Behaviour]
		if ok && jb.Batch && !batchOrg(g.Judge) {
			return field.Errorf("workload.behaviours."+g.Behaviour+".batch",
				"the class grades on %s (behaviours.%s.grading.judge), whose organisation has no batch API (organisations[].batch)", g.Judge, name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(s.Workload.BehaviourMix)) {
		if b, ok := s.Workload.Behaviours[name]; ok && b.Batch {
			return field.Errorf("workload.behaviours."+name+".batch",
				"a class in behaviour_mix lands on any model; only a grading behaviour (behaviours.X.grading.behaviour) may be sent to a batch API")
		}
	}
	return nil
}
