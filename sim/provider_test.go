package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/evalsched/lab/internal/distcheck"
	"github.com/evalsched/lab/scenario"
	"gonum.org/v1/gonum/stat/distuv"
)

// TestJitterQuantiles: the jitter factor is the inverse CDF of its
// distribution at u (clamped to [1e-12, 1−1e-12]), within 4 ulps of the
// math package's formula (fastmath's exp and log for math.Exp and
// math.Log1p), at the edges and 200,000 uniform draws.
func TestJitterQuantiles(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	cv := 0.7 // a variable: constant arithmetic would be exact, not rounded
	us := []float64{0, 1e-12, 1.0 / 128, 0.5, 1 - 1e-12, 1}
	for range 200000 {
		us = append(us, r.Float64())
	}
	for _, tc := range []struct {
		name    string
		cfg     scenario.JitterConfig
		formula func(u float64) float64
	}{
		{"lognormal", scenario.JitterConfig{Dist: "lognormal", CV: cv}, func(u float64) float64 {
			sigma := math.Sqrt(math.Log1p(cv * cv))
			return math.Exp(-sigma*sigma/2 + sigma*distuv.UnitNormal.Quantile(u))
		}},
		{"exponential", scenario.JitterConfig{Dist: "exponential"}, func(u float64) float64 { return -math.Log1p(-u) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			jit := compileJitter(tc.cfg)
			for _, u := range us {
				got := jit.factor(u)
				u = math.Min(math.Max(u, 1e-12), 1-1e-12)
				want := tc.formula(u)
				if apart := int64(math.Float64bits(got)) - int64(math.Float64bits(want)); apart < -4 || apart > 4 {
					t.Fatalf("jitter(%v) = %v, want %v (the formula): %d ulps apart", u, got, want, apart)
				}
			}
		})
	}
}

// TestJitterDistributions: the jitter factor of uniform draws has the
// theory's mean (1) and variance (CV², 1 for exponential) and passes a KS
// test against the exact CDF at α = 0.001.
func TestJitterDistributions(t *testing.T) {
	const n = 200_000
	for _, cv := range []float64{0, 0.3, 1.5} {
		cfg := scenario.JitterConfig{Dist: "lognormal", CV: cv}
		sigma := math.Sqrt(math.Log1p(cv * cv))
		cdf, theory := distcheck.Lognormal(-sigma*sigma/2, sigma)
		if cv == 0 {
			cfg = scenario.JitterConfig{Dist: "exponential"}
			cdf, theory = distcheck.Exponential(1)
		}
		t.Run(fmt.Sprintf("%s-%g", cfg.Dist, cv), func(t *testing.T) {
			jit, r := compileJitter(cfg), rand.New(rand.NewPCG(3, 4))
			xs := make([]float64, n)
			for i := range xs {
				xs[i] = jit.factor(r.Float64())
			}
			fails, d, crit := distcheck.Check(xs, cdf, theory)
			for _, f := range fails {
				t.Error(f)
			}
			t.Logf("KS D %.5f, critical %.5f", d, crit)
		})
	}
}

// TestStartSlowdown: a call's latency is its base × the capacity event's
// latency factor × the slowdown past the knee (1 + (max − 1) ·
// min(1, (util − knee) / (1 − knee)), util = streams in service ÷
// configured streams) × its jitter, in whole microseconds; no slowdown
// (max ≤ 1) or a load at or below the knee leaves it as it is.
func TestStartSlowdown(t *testing.T) {
	sc, err := scenario.ParseScenario("s.yaml", []byte(`
name: s
duration: 10m
containers: {capacity: 10}
models:
  - {name: slow, streams: 10, ttft: 1s, decode_rate: 50, slowdown: {knee: 0.5, max: 3}}
  - {name: flat, streams: 10, ttft: 1s, decode_rate: 50, slowdown: {knee: 0.5, max: 1}}
workload:
  accounts: 1
  projects_per_account: 1
  models: {hot: [slow, flat], hot_share: 1}
  behaviours:
    one: {turns: 1, fanout: 1, prompt_tokens: 100, output_tokens: 10, tool_seconds: 0}
`))
	if err != nil {
		t.Fatal(err)
	}
	p := newProvider(sc, sc.ModelConfigs())
	latency := 1.5
	p.models[0].apply(scenario.CapacityEvent{Latency: &latency})
	// busy after the start → the slowdown factor of "slow" (max 3, knee 0.5).
	want := map[int]float64{1: 1, 5: 1, 6: 1.4, 7: 1.8, 9: 2.6, 10: 3, 12: 3}
	for busy := 1; busy <= 12; busy++ {
		got := p.start(&p.models[0], 2, 1.25)
		if f, ok := want[busy]; ok {
			if w := FromSeconds(2 * 1.5 * f * 1.25); got != w {
				t.Errorf("slow, %d busy: latency %v, want %v (factor %v)", busy, got, w, f)
			}
		}
		if got := p.start(&p.models[1], 2, 1.25); got != FromSeconds(2.5) {
			t.Errorf("flat, %d busy: latency %v, want 2.5s", busy, got)
		}
	}
}

// TestStartRoundsAsFromSeconds: a call's latency is rounded to the clock
// as FromSeconds rounds it, at halves of a tick and next to them, at the
// cap, outside the fast path's domain, and over random latencies of every
// magnitude.
func TestStartRoundsAsFromSeconds(t *testing.T) {
	tick := 1 / float64(Second)
	cases := []float64{0, math.Copysign(0, -1), 1e-300, 0.5 * tick, 1.5 * tick, 2.5 * tick, 1e6 + 0.5*tick,
		math.Nextafter(0.5, 0) * tick, 0.49999999999999994 * tick, 0.5000000000000001 * tick,
		float64(1<<52) * tick, float64(1<<53) * tick, 1e10, math.Nextafter(1e10, 0), 2e10,
		-1e-9, -0.5 * tick, -1.5 * tick, -2.7 * tick, -1, math.Inf(1), math.Inf(-1), math.NaN()}
	rng := rand.New(rand.NewPCG(9, 44))
	for range 1_000_000 {
		s := math.Exp(rng.Float64()*60 - 30)
		cases = append(cases, s, (math.Round(s*float64(Second))+0.5)*tick, math.Nextafter(s, 0))
	}
	for k := range 1 << 12 { // halves of a tick, and next to them
		x := float64(k) + 0.5
		for _, y := range []float64{x, math.Nextafter(x, 0), math.Nextafter(x, x+1)} {
			cases = append(cases, y*tick)
		}
	}
	var p Provider
	d := deployment{latFactor: 1, streams: 1}
	for _, s := range cases {
		if got, want := p.start(&d, s, 1), FromSeconds(min(s, maxLatencySeconds)); got != want {
			t.Fatalf("start's latency of %v s is %d, FromSeconds gives %d", s, got, want)
		}
	}
}
