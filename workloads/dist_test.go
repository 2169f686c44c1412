package workloads

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/evalsched/lab/internal/distcheck"
	"github.com/evalsched/lab/internal/field"
	"github.com/google/go-cmp/cmp"
	"gonum.org/v1/gonum/stat/distuv"
)

// referenceSample is Dist.Sample as it was before distributions were
// compiled: one switch on the kind per draw.
func referenceSample(d Dist, src rand.Source) float64 {
	var v float64
	switch d.Kind {
	case "fixed":
		return d.Value
	case "uniform":
		return d.Min + (d.Max-d.Min)*unit(src)
	case "exponential":
		v = distuv.Exponential{Rate: 1 / d.Mean, Src: src}.Rand()
	case "lognormal":
		v = distuv.LogNormal{Mu: math.Log(d.Median), Sigma: d.Sigma, Src: src}.Rand()
	case "pareto":
		u := unit(src)
		ratio := math.Pow(d.Min/d.Max, d.Alpha)
		return d.Min / math.Pow(1-u*(1-ratio), 1/d.Alpha)
	}
	if v < d.Min {
		v = d.Min
	}
	if d.Max > 0 && v > d.Max {
		v = d.Max
	}
	return v
}

// samplerCases are a distribution of each kind, with and without bounds
// (and a uniform of zero width), that the sampler tests draw from.
func samplerCases() []Dist {
	return []Dist{
		Fixed(3),
		{Kind: "uniform", Min: 1, Max: 8},
		{Kind: "uniform", Min: 0.3, Max: 0.3},
		{Kind: "exponential", Mean: 2.5},
		{Kind: "exponential", Mean: 2.5, Min: 0.5, Max: 4},
		{Kind: "lognormal", Median: 400, Sigma: 0.8},
		{Kind: "lognormal", Median: 400, Sigma: 0.8, Min: 100, Max: 900},
		{Kind: "pareto", Min: 10, Max: 50000, Alpha: 1.1},
		{Kind: "pareto", Min: 2, Max: 30, Alpha: 1},
	}
}

// TestSamplersMatchReference: a compiled distribution draws what the
// per-draw switch with gonum's samplers drew, from the same source: bit for
// bit for the inverse-CDF kinds; exponential and lognormal within 4 ulps
// (a multiply by the mean for a divide by the rate, fastmath.Exp for
// math.Exp) and with the same draws of the source (the streams stay in
// step for 20,000 draws).
func TestSamplersMatchReference(t *testing.T) {
	for i, d := range samplerCases() {
		t.Run(fmt.Sprintf("%d-%s", i, d.Kind), func(t *testing.T) {
			if err := d.compileAt("d"); err != nil {
				t.Fatal(err)
			}
			got, want := rand.NewPCG(5, 6), rand.NewPCG(5, 6)
			for i := 0; i < 20000; i++ {
				g, w := d.Sample(got), referenceSample(d, want)
				apart := int64(math.Float64bits(g)) - int64(math.Float64bits(w))
				if tol := int64(ulpTolerance(d.Kind)); apart < -tol || apart > tol {
					t.Fatalf("draw %d: %v, want %v (%d ulps apart, allowed %d)", i, g, w, apart, tol)
				}
			}
		})
	}
}

func ulpTolerance(k DistKind) int {
	if k == DistExponential || k == DistLognormal {
		return 4
	}
	return 0
}

// TestSamplerDistributions: exponential and lognormal draws (clipped or
// not, where the clip is outside the draws' practical range) have the
// theory's mean and variance and pass a KS test against the exact CDF at
// α = 0.001 (internal/distcheck).
func TestSamplerDistributions(t *testing.T) {
	const n = 200_000
	for _, d := range []Dist{
		{Kind: DistExponential, Mean: 2.5},
		{Kind: DistExponential, Mean: 0.004, Min: 1e-9, Max: 1},
		{Kind: DistLognormal, Median: 400, Sigma: 0.8},
		{Kind: DistLognormal, Median: 0.05, Sigma: 0.3, Max: 10},
	} {
		cdf, theory := distcheck.Exponential(d.Mean)
		if d.Kind == DistLognormal {
			cdf, theory = distcheck.Lognormal(math.Log(d.Median), d.Sigma)
		}
		tc := struct {
			d      Dist
			cdf    func(float64) float64
			theory distcheck.Moments
		}{d, cdf, theory}
		t.Run(fmt.Sprintf("%s-%g-%g-%g", tc.d.Kind, tc.d.Mean, tc.d.Median, tc.d.Sigma), func(t *testing.T) {
			if err := tc.d.compileAt("d"); err != nil {
				t.Fatal(err)
			}
			src := rand.NewPCG(11, 12)
			xs := make([]float64, n)
			for i := range xs {
				xs[i] = tc.d.Sample(src)
			}
			fails, d, crit := distcheck.Check(xs, tc.cdf, tc.theory)
			for _, f := range fails {
				t.Error(f)
			}
			t.Logf("KS D %.5f, critical %.5f", d, crit)
		})
	}
}

// TestSamplerMatchesQuantile: uniform and bounded Pareto draws are the
// quantile of one unit draw; the uniform one is gonum's.
func TestSamplerMatchesQuantile(t *testing.T) {
	u := distuv.Uniform{Min: 1, Max: 8}
	p := newBoundedPareto(10, 50000, 1.1)
	for _, x := range []float64{0, 0.25, 0.5, 0.999} {
		if got, want := u.Quantile(x), 1+(8-1)*x; got != want {
			t.Errorf("uniform quantile(%g) = %v, want %v", x, got, want)
		}
		if q := p.Quantile(x); q < p.Min || q > p.Max {
			t.Errorf("pareto quantile(%g) = %v outside [%g, %g]", x, q, p.Min, p.Max)
		}
	}
}

// TestConfigErrorsAreFieldErrors: workload validation errors read back with
// errors.As as *field.Error at the field's path, with the text unchanged.
func TestConfigErrorsAreFieldErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*Config)
		path   string
		text   string
	}{
		{"hot model", func(c *Config) { c.Models.Hot = []string{"gpt-9"} }, "models.hot[0]", `models.hot[0]: unknown model "gpt-9"`},
		{"turns", func(c *Config) {
			c.Behaviours["x"] = Behaviour{Turns: Dist{Kind: "pareto", Min: 0, Max: 3, Alpha: 1}}
		}, "behaviours.x.turns.min", "behaviours.x.turns.min: must be > 0, got 0"},
		{"missing dist", func(c *Config) { c.Batches.Size = Dist{Value: 3} }, "batches.size.dist",
			"batches.size.dist: missing (fixed, uniform, exponential, lognormal, pareto or empirical)"},
		{"phase switch", func(c *Config) {
			c.Behaviours["x"] = Behaviour{PhaseSwitch: &PhaseSwitch{AtFraction: 2, Fanout: Fixed(1)}}
		}, "behaviours.x.phase_switch.at_fraction", "behaviours.x.phase_switch.at_fraction: must be in (0, 1), got 2"},
		{"judge", func(c *Config) { c.Behaviours["single"] = Behaviour{Grading: &Grading{Judge: "nobody"}} },
			"behaviours.single.grading.judge", `behaviours.single.grading.judge: unknown model "nobody"`},
		{"mix", func(c *Config) { c.BehaviourMix = map[string]float64{"ghost": 1} }, "behaviour_mix.ghost", "behaviour_mix.ghost: unknown behaviour"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig()
			tc.change(&cfg)
			err := cfg.Validate(testCatalogue)
			var fe *field.Error
			if !errors.As(err, &fe) {
				t.Fatalf("error %v (%T) is not a *field.Error", err, err)
			}
			if diff := cmp.Diff([]string{tc.path, tc.text}, []string{fe.Path, err.Error()}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

var sampleSink float64

// BenchmarkSample: a compiled exponential and lognormal draw against
// referenceSample's (gonum's Rand: a divide by the rate, math.Exp) from
// the same source.
//
//	go test -run '^$' -bench Sample -count 5 ./workloads/
func BenchmarkSample(b *testing.B) {
	for _, d := range []Dist{{Kind: DistExponential, Mean: 2.5}, {Kind: DistLognormal, Median: 400, Sigma: 0.8}} {
		if err := d.compileAt("d"); err != nil {
			b.Fatal(err)
		}
		b.Run(string(d.Kind)+"/compiled", func(b *testing.B) {
			src := rand.NewPCG(1, 2)
			for range b.N {
				sampleSink += d.Sample(src)
			}
		})
		b.Run(string(d.Kind)+"/reference", func(b *testing.B) {
			src := rand.NewPCG(1, 2)
			for range b.N {
				sampleSink += referenceSample(d, src)
			}
		})
	}
}

// opaqueSource hides a PCG behind rand.Source, so Sample takes its path
// for any source: (*rand.Rand)'s own draws.
type opaqueSource struct{ p *rand.PCG }

func (s opaqueSource) Uint64() uint64 { return s.p.Uint64() }

// TestZigguratMatchesRand: zigNormal and zigExp draw what (*rand.Rand)'s
// NormFloat64 and ExpFloat64 draw from the same PCG, bit for bit and with
// the same number of draws, over enough draws to take every branch (the
// base strip and the wedges) many times.
func TestZigguratMatchesRand(t *testing.T) {
	for _, tc := range []struct {
		name     string
		zig, std func(*rand.PCG) float64
	}{
		{"normal", zigNormal, func(p *rand.PCG) float64 { return rand.New(p).NormFloat64() }},
		{"exp", zigExp, func(p *rand.PCG) float64 { return rand.New(p).ExpFloat64() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, want := rand.NewPCG(7, 8), rand.NewPCG(7, 8)
			for i := range 2_000_000 {
				if g, w := tc.zig(got), tc.std(want); math.Float64bits(g) != math.Float64bits(w) {
					t.Fatalf("draw %d: %v, want %v", i, g, w)
				}
			}
			if got.Uint64() != want.Uint64() {
				t.Fatal("the streams are out of step")
			}
		})
	}
}

// TestDrawMatchesSample: every kind draws the same values from a PCG
// (draw, and Sample's PCG path) as from the same stream behind another
// rand.Source, bit for bit and in step.
func TestDrawMatchesSample(t *testing.T) {
	for i, d := range samplerCases() {
		t.Run(fmt.Sprintf("%d-%s", i, d.Kind), func(t *testing.T) {
			if err := d.compileAt("d"); err != nil {
				t.Fatal(err)
			}
			a, b, c := rand.NewPCG(5, 6), rand.NewPCG(5, 6), rand.NewPCG(5, 6)
			other := opaqueSource{c}
			for i := range 200_000 {
				x, y, z := d.draw(a), d.Sample(b), d.Sample(other)
				if math.Float64bits(x) != math.Float64bits(z) || math.Float64bits(y) != math.Float64bits(z) {
					t.Fatalf("draw %d: draw %v, Sample %v, Sample of another source %v", i, x, y, z)
				}
			}
			if x, y, z := a.Uint64(), b.Uint64(), c.Uint64(); x != z || y != z {
				t.Fatal("the streams are out of step")
			}
		})
	}
}

// TestRoundClamped: roundClamped is math.Round on [0, 2^52]: at and
// beside every half below 5000 and at every power of two, at the float
// just below one half, at the limits and over random draws.
func TestRoundClamped(t *testing.T) {
	check := func(v float64) {
		t.Helper()
		if got, want := roundClamped(v), int(math.Round(v)); got != want {
			t.Fatalf("roundClamped(%v) = %d, want %d", v, got, want)
		}
	}
	for _, v := range []float64{0, math.SmallestNonzeroFloat64, 0.49999999999999994, 0.5, 1, 2.5, 3.5, MaxTokens, MaxTokens - 0.5, 1 << 52, 1<<52 - 0.5, 1<<51 + 0.5} {
		check(v)
	}
	for n := 0.0; n < 5000; n++ {
		for _, v := range []float64{n + 0.5, math.Nextafter(n+0.5, 0), math.Nextafter(n+0.5, math.Inf(1)), n, math.Nextafter(n, math.Inf(1))} {
			check(v)
		}
	}
	// Beside the halves (a few ulps either way) at and below every power
	// of two to 2^52, where the sum's ulp doubles, and at random counts.
	around := func(x float64) {
		lo, hi := x, x
		for range 4 {
			check(lo)
			check(hi)
			lo, hi = math.Nextafter(lo, 0), math.Nextafter(hi, math.Inf(1))
		}
	}
	src := rand.NewPCG(1, 2)
	for k := range 53 {
		p := math.Ldexp(1, k)
		for _, x := range []float64{p, p - 0.5, p + 0.5, p - 1.5, p/2 - 0.25, p / 4} {
			if x >= 0 && x <= 1<<52 {
				around(x)
			}
		}
		for range 2000 {
			n := float64(src.Uint64() >> (64 - k)) // [0, 2^k)
			around(n + 0.5)
			around(n)
		}
	}
	for range 1_000_000 {
		check(unit(src) * MaxTokens)
		check(unit(src))
		check(math.Float64frombits(src.Uint64()>>12 | 0x3ff<<52)) // [1, 2)
	}
}

// TestIntNMatchesRand: intN draws what (*rand.Rand).IntN draws from the
// same PCG, for powers of two, small counts and counts large enough that
// Lemire's rejection loop runs.
func TestIntNMatchesRand(t *testing.T) {
	got, want := newPCG(3, 4), rand.NewPCG(3, 4)
	r := rand.New(want)
	for _, n := range []int{1, 2, 3, 5, 7, 8, 40, 200, 1000, 1 << 20, 1<<62 + 1, 3 << 61, math.MaxInt} {
		for i := range 20_000 {
			if g, w := intN(got, n), r.IntN(n); g != w {
				t.Fatalf("n %d, draw %d: %d, want %d", n, i, g, w)
			}
		}
	}
	if got.Uint64() != want.Uint64() {
		t.Fatal("the streams are out of step")
	}
}

// TestPCGMatchesRand: pcg draws what rand.PCG draws, seeded alike, and a
// jump of n steps leaves it where n draws do.
func TestPCGMatchesRand(t *testing.T) {
	for _, seed := range [][2]uint64{{0, 0}, {1, 2}, {^uint64(0), 1}, {Stream(9, "arrivals"), 1}} {
		p, q := newPCG(seed[0], seed[1]), rand.NewPCG(seed[0], seed[1])
		for i := range 10_000 {
			if x, y := p.Uint64(), q.Uint64(); x != y {
				t.Fatalf("seed %v, draw %d: %#x, rand.PCG %#x", seed, i, x, y)
			}
		}
		for n := range 8 {
			j := newPCGJump(n)
			p.jump(&j)
			for range n {
				q.Uint64()
			}
			if x, y := p.Uint64(), q.Uint64(); x != y {
				t.Fatalf("seed %v: after a jump of %d, %#x; after %d draws, %#x", seed, n, x, n, y)
			}
		}
	}
}
