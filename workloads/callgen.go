package workloads

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/evalsched/lab/internal/field"
)

// CallGenConfig generates production requests instead of replaying a
// trace: a Poisson stream of RatePerHour calls per hour on average over a
// day, shaped by Hourly (24 relative weights by clock hour; flat when
// empty), each call's prompt (input) and output tokens drawn from their
// distributions.
type CallGenConfig struct {
	RatePerHour  float64
	Hourly       []float64
	PromptTokens Dist
	OutputTokens Dist
}

// Validate checks the generator's settings; errors are *field.Error at the
// key (rate_per_hour, hourly, prompt_tokens, output_tokens).
func (c *CallGenConfig) Validate() error {
	if !(c.RatePerHour > 0) || c.RatePerHour > 1e9 {
		return field.Errorf("rate_per_hour", "must be in (0, 1e9], got %g", c.RatePerHour)
	}
	if err := CheckWeights("hourly", c.Hourly, 24); err != nil {
		return err
	}
	for _, d := range []struct {
		path string
		d    *Dist
	}{{"prompt_tokens", &c.PromptTokens}, {"output_tokens", &c.OutputTokens}} {
		if d.d.IsZero() {
			return field.Errorf(d.path, "missing (a distribution of tokens per call)")
		}
		if err := d.d.compileAt(d.path); err != nil {
			return err
		}
		if err := d.d.CheckAtMost(d.path, MaxTokens); err != nil {
			return err
		}
	}
	return nil
}

// callGenerator is a CallSource drawing calls up to a horizon. Arrivals are
// a non-homogeneous Poisson process by thinning at the peak hourly rate.
type callGenerator struct {
	cfg     CallGenConfig
	hourly  []float64
	peak    float64 // calls per second at the peak hour
	clock   time.Duration
	horizon time.Duration
	src     *rand.PCG
	t       float64 // seconds
}

// NewCallGenerator starts a generator whose virtual time 0 reads clock on
// a wall clock (time of day is clock mod 24 h), drawing from the seeded
// stream seed. cfg must have passed Validate.
func NewCallGenerator(cfg CallGenConfig, clock, horizon time.Duration, seed uint64) CallSource {
	f, top, _ := factors("hourly", cfg.Hourly, 24)
	return &callGenerator{cfg: cfg, hourly: f, peak: cfg.RatePerHour / 3600 * top, clock: clock, horizon: horizon,
		src: rand.NewPCG(seed, 0x70726f64)}
}

func (g *callGenerator) Next() (Call, bool) {
	for {
		g.t += -math.Log1p(-unit(g.src)) / g.peak
		at := time.Duration(g.t * float64(time.Second))
		if g.t >= g.horizon.Seconds() {
			return Call{}, false
		}
		keep := 1.0
		if g.hourly != nil {
			keep = g.hourly[int(((g.clock+at)/time.Hour)%24)] * g.cfg.RatePerHour / 3600 / g.peak
		}
		if u := unit(g.src); u >= keep {
			continue
		}
		// Clamped as a behaviour's draws are: an unbounded tail must not
		// overflow a call's int32 token counts.
		in := countDraw(g.cfg.PromptTokens.draw(g.src), MaxTokens)
		out := countDraw(g.cfg.OutputTokens.draw(g.src), MaxTokens)
		return Call{Arrival: at, In: in, Out: out}, true
	}
}

func (g *callGenerator) Err() error { return nil }
