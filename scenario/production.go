package scenario

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/evalsched/lab/internal/field"
	"github.com/evalsched/lab/workloads"
)

// ProductionConfig replays a public request trace as production traffic:
// open-loop calls on one model that share its provider streams and its
// organisation's quotas with the evaluation jobs. They go to the provider
// directly (not through the evaluation gateway's queue) and on a 429 back off
// and retry like gateway calls, up to MaxAttempts.
type ProductionConfig struct {
	Name   string                  `yaml:"name" json:"name"`
	Trace  string                  `yaml:"trace" json:"trace"`   // path; relative paths are relative to the scenario file
	Format workloads.RequestFormat `yaml:"format" json:"format"` // empty: inferred from the extension
	Model  string                  `yaml:"model" json:"model"`
	// Team and Key (format gateway only) replay the calls of one team or
	// one key of a gateway's log: with a gateway trace the stream is the
	// trace's calls on Model (of Team and Key when set).
	Team string `yaml:"team" json:"team,omitempty"`
	Key  string `yaml:"key" json:"key,omitempty"`
	// Speedup compresses time (2 = twice the request rate); Loop restarts
	// the trace at its end until the run ends; Offset delays it.
	Speedup     float64       `yaml:"speedup" json:"speedup"`
	Loop        bool          `yaml:"loop" json:"loop"`
	Offset      time.Duration `yaml:"offset" json:"offset"`
	MaxAttempts int           `yaml:"max_attempts" json:"max_attempts"`
	// Instead of a trace: a generator of RatePerHour calls per hour (mean
	// over the day) shaped by Hourly (24 weights by clock hour, see
	// Scenario.Clock), with tokens drawn per call.
	RatePerHour  float64        `yaml:"rate_per_hour" json:"rate_per_hour,omitempty"`
	Hourly       []float64      `yaml:"hourly" json:"hourly,omitempty"`
	PromptTokens workloads.Dist `yaml:"prompt_tokens" json:"prompt_tokens,omitzero"`
	OutputTokens workloads.Dist `yaml:"output_tokens" json:"output_tokens,omitzero"`
	// Retry is production's own backoff (production clients do not share
	// the evaluation gateway's); its max_attempts, if set, wins over
	// MaxAttempts. Unset: the gateway's backoff and MaxAttempts.
	Retry *RetryConfig `yaml:"retry" json:"retry,omitempty"`
	// OutageThreshold: a minute whose success rate is below it is an
	// outage minute (default 0.5).
	OutageThreshold float64 `yaml:"outage_threshold" json:"outage_threshold,omitempty"`
	// MaxTokens is the max_tokens its calls ask for when the trace's
	// record gives none (0: none): metered as evaluation calls' are, and a
	// call's output is cut there.
	MaxTokens int `yaml:"max_tokens" json:"max_tokens,omitempty"`
}

// DefaultOutageThreshold is the success rate below which a minute is an
// outage minute for a production stream.
const DefaultOutageThreshold = 0.5

func (p *ProductionConfig) Generated() bool { return p.Trace == "" && p.RatePerHour > 0 }

func (p *ProductionConfig) CallGen() workloads.CallGenConfig {
	return workloads.CallGenConfig{RatePerHour: p.RatePerHour, Hourly: p.Hourly, PromptTokens: p.PromptTokens, OutputTokens: p.OutputTokens}
}

func (s *Scenario) validateProduction() error {
	for i := range s.Production {
		p := &s.Production[i]
		path := fmt.Sprintf("production[%d]", i)
		switch {
		case !s.hasModel(p.Model):
			return field.Errorf(path+".model", "unknown model %q", p.Model)
		case p.RatePerHour < 0 || math.IsNaN(p.RatePerHour):
			return field.Errorf(path+".rate_per_hour", "must be > 0 (calls per hour), got %g", p.RatePerHour)
		case p.Trace == "" && p.RatePerHour == 0:
			return field.Errorf(path+".trace", "missing (give a trace, or rate_per_hour for a generator)")
		case p.Trace != "" && (p.RatePerHour != 0 || len(p.Hourly) > 0 || !p.PromptTokens.IsZero() || !p.OutputTokens.IsZero()):
			return field.Errorf(path+".rate_per_hour", "a trace and a generator (rate_per_hour, hourly, prompt_tokens, output_tokens) exclude each other")
		case !(p.OutageThreshold >= 0 && p.OutageThreshold <= 1):
			return field.Errorf(path+".outage_threshold", "must be in [0, 1], got %g", p.OutageThreshold)
		case p.MaxTokens < 0 || p.MaxTokens > workloads.MaxTokens:
			return field.Errorf(path+".max_tokens", "must be in [0, %d] (0 = none), got %d", int(workloads.MaxTokens), p.MaxTokens)
		case p.Format != "" && !slices.Contains(workloads.RequestFormats, p.Format):
			return field.Errorf(path+".format", "unknown %q (want azure, mooncake or gateway)", p.Format)
		case (p.Team != "" || p.Key != "") && p.Format != workloads.RequestGateway:
			return field.Errorf(path+".team", "team and key select the calls of a gateway trace: set format: gateway (sim trace import --from litellm writes one)")
		case p.Speedup < 0:
			return field.Errorf(path+".speedup", "must be >= 0, got %g", p.Speedup)
		case p.Offset < 0:
			return field.Errorf(path+".offset", "must be >= 0, got %v", p.Offset)
		case p.MaxAttempts < 0:
			return field.Errorf(path+".max_attempts", "must be >= 1, got %d", p.MaxAttempts)
		}
		if p.Generated() {
			cfg := p.CallGen()
			if err := cfg.Validate(); err != nil {
				return field.Under(path, err)
			}
			p.PromptTokens, p.OutputTokens = cfg.PromptTokens, cfg.OutputTokens
		}
		if p.Retry != nil {
			p.Retry.applyDefaults()
			if err := p.Retry.validate(path + ".retry"); err != nil {
				return err
			}
		}
	}
	return nil
}

// loadProduction opens each trace once to check the file and its format
// before any run starts.
func (s *Scenario) loadProduction() error {
	for i := range s.Production {
		p := &s.Production[i]
		if p.Generated() {
			continue
		}
		opt := workloads.ReplayOptions{Horizon: time.Minute}
		if p.Format == workloads.RequestGateway {
			// Read up to the stream's first call, however late: a gateway
			// trace with no call of this stream would replay nothing, silently.
			opt = p.ReplayFilter(workloads.ReplayOptions{})
		}
		src, closer, err := workloads.OpenRequestTrace(p.Trace, p.Format, opt)
		var found bool
		if err == nil {
			_, found = src.Next()
			err = src.Err()
			closer.Close()
		}
		if err != nil {
			return field.Errorf(fmt.Sprintf("production[%d].trace", i), "%v", err)
		}
		if !found && p.Format == workloads.RequestGateway {
			return field.Errorf(fmt.Sprintf("production[%d].model", i), "%s has no call on %s%s", p.Trace, p.Model, p.sourceText())
		}
	}
	return nil
}

// ReplayFilter is opt with the stream's selection of a gateway trace's
// calls (its model, team and key); other formats carry none.
func (p *ProductionConfig) ReplayFilter(opt workloads.ReplayOptions) workloads.ReplayOptions {
	if p.Format == workloads.RequestGateway {
		opt.Model, opt.Team, opt.Key = p.Model, p.Team, p.Key
	}
	return opt
}

func (p *ProductionConfig) sourceText() string {
	s := ""
	if p.Team != "" {
		s += fmt.Sprintf(" of team %q", p.Team)
	}
	if p.Key != "" {
		s += fmt.Sprintf(" of key %q", p.Key)
	}
	return s
}
