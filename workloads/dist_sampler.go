package workloads

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"time"

	"github.com/evalsched/lab/internal/fastmath"
	"github.com/evalsched/lab/internal/field"
	"gonum.org/v1/gonum/stat/distuv"
)

// A sampler is a compiled Dist: its kind resolved once, at validation, to
// a kind code and the constants its draw needs. Samplers are comparable
// values (a concrete struct, not an interface: drawing is a switch, and
// from a *rand.PCG the source's Uint64 inlines), so Dists that carry them
// still compare with ==.
//
// What each draws from src is part of the outputs (a seed's runs are
// byte-identical), so it is fixed: uniform and bounded Pareto take the
// inverse CDF (Quantile) of one unit(src); exponential and lognormal take
// the ziggurat of (*rand.Rand).ExpFloat64 and NormFloat64 (zigExp,
// zigNormal: the same draws, bit for bit), scaled by constants compiled
// once, the lognormal's exponential by fastmath.Exp (within 2 ulps of
// math.Exp at well under half its cost: a lognormal is drawn several
// times a call); empirical picks a value with uint64n.
type sampler struct {
	kind samplerKind
	// fixed: a = the value; uniform: a = min, b = max-min; exponential:
	// a = the mean; lognormal: a = μ, b = σ; pareto: a = min,
	// b = 1-(min/max)^α, c = 1/α.
	a, b, c float64
	clipped
	col *empiricalColumn
	// fixed: what the agent takes of the value, worked out once:
	// tokenDraw(a) (a count's too, bounded by its limit: countOf) and
	// toolDuration(a).
	whole int
	span  time.Duration
}

type samplerKind uint8

const (
	notCompiled samplerKind = iota
	kindFixed
	kindUniform
	kindExponential
	kindLognormal
	kindPareto
	kindEmpirical
)

func fixedSampler(v float64) sampler {
	return sampler{kind: kindFixed, a: v, clipped: clipped{meanValue: v}, whole: tokenDraw(v), span: toolDuration(v)}
}

func (s *sampler) mean() float64 { return s.meanValue }

// drawSlow is draw for the kinds that draw from src: a lognormal (the
// agent's token and tool draws) first, the other kinds in a switch. It
// stays a call (the profile would inline it into draw and draw would
// then be too large to inline itself, a call even for a fixed value).
//
//go:noinline
func (d *Dist) drawSlow(src *rand.PCG) float64 {
	s := &d.s
	if s.kind == kindLognormal {
		// Tested before the switch: a lognormal is most draws (a call's
		// output tokens, a turn's tool tokens and time). zigNormal with
		// its first strip inline: a call to zigNormal costs a tenth of
		// the draw. Exp is inlined by the profile (cmd/sim/default.pgo)
		// at this call's line in drawSlow, 15 lines below its first.
		u := src.Uint64()
		z, ok := zigNormalStrip(u)
		if !ok {
			z = zigNormalFrom(src, u)
		}
		// exp(μ + σz) for z standard normal (μ = a, σ = b), clipped to
		// [min, max] (apply).
		return s.apply(fastmath.Exp(s.a + s.b*z))
	}
	switch s.kind {
	case kindUniform:
		return unitOf(src.Uint64())*s.b + s.a // distuv.Uniform's Quantile
	case kindExponential:
		return s.apply(s.a * zigExp(src))
	case kindPareto:
		return s.a / math.Pow(1-unitOf(src.Uint64())*s.b, s.c) // boundedPareto's Quantile
	case kindEmpirical:
		return s.col.v[uint64n(src, uint64(len(s.col.v)))]
	case notCompiled:
		return d.drawUncompiled(src)
	}
	return s.a // fixed
}

// drawUncompiled is drawSlow of a Dist that was not validated: compiled on
// the way (and panics if it is invalid), out of drawSlow's frame.
//
//go:noinline
func (d *Dist) drawUncompiled(src *rand.PCG) float64 {
	c := *d
	c.s = d.mustCompile() // not kept: d may be shared between runs
	return c.drawSlow(src)
}

// sample is drawSlow's formulas over any source's draws, through
// (*rand.Rand) (what zigNormal and zigExp copy).
func (s *sampler) sample(src rand.Source) float64 {
	r := rand.New(src)
	switch s.kind {
	case kindLognormal:
		return s.apply(fastmath.Exp(s.a + s.b*r.NormFloat64()))
	case kindUniform:
		return r.Float64()*s.b + s.a
	case kindExponential:
		return s.apply(s.a * r.ExpFloat64())
	case kindPareto:
		return s.a / math.Pow(1-r.Float64()*s.b, s.c)
	case kindEmpirical:
		return s.col.v[uint64n(src, uint64(len(s.col.v)))]
	}
	return s.a // fixed
}

// compile checks the parameters and builds the sampler: the one place the
// kinds are told apart. Errors are *field.Error at the parameter (mean,
// max, ...) relative to the distribution.
func (d Dist) compile() (sampler, error) {
	s, err := d.kindSampler()
	if err != nil {
		return sampler{}, err
	}
	if d.Kind != "uniform" && d.Kind != "pareto" && d.Max > 0 && d.Max < d.Min {
		return sampler{}, field.Errorf("max", "must be >= min (%g), got %g", d.Min, d.Max)
	}
	return s, nil
}

func (d Dist) kindSampler() (sampler, error) {
	switch d.Kind {
	case "fixed":
		if d.Value < 0 || math.IsNaN(d.Value) {
			return sampler{}, field.Errorf("value", "must be >= 0, got %g", d.Value)
		}
		return fixedSampler(d.Value), nil
	case "uniform":
		if d.Min < 0 || d.Max < d.Min {
			return sampler{}, field.Errorf("max", "need 0 <= min <= max, got min %g max %g", d.Min, d.Max)
		}
		u := distuv.Uniform{Min: d.Min, Max: d.Max}
		return sampler{kind: kindUniform, a: d.Min, b: d.Max - d.Min, clipped: clipped{meanValue: u.Mean()}}, nil
	case "exponential":
		if !(d.Mean > 0) {
			return sampler{}, field.Errorf("mean", "must be > 0, got %g", d.Mean)
		}
		// The mean times a unit exponential: a multiply where distuv's
		// Rand divides by the rate.
		return sampler{kind: kindExponential, a: d.Mean, clipped: clipOf(d.Min, d.Max, d.Mean)}, nil
	case "lognormal":
		if !(d.Median > 0) {
			return sampler{}, field.Errorf("median", "must be > 0, got %g", d.Median)
		}
		if d.Sigma < 0 {
			return sampler{}, field.Errorf("sigma", "must be >= 0, got %g", d.Sigma)
		}
		// exp(μ + σz) for z standard normal, μ = log of the median.
		return sampler{kind: kindLognormal, a: math.Log(d.Median), b: d.Sigma,
			clipped: clipOf(d.Min, d.Max, d.Median*math.Exp(d.Sigma*d.Sigma/2))}, nil
	case "pareto":
		return d.compilePareto()
	case "empirical":
		return d.compileEmpirical()
	case "":
		return sampler{}, field.Errorf("dist", "missing (fixed, uniform, exponential, lognormal, pareto or empirical)")
	}
	return sampler{}, field.Errorf("dist", "unknown distribution %q (want fixed, uniform, exponential, lognormal, pareto or empirical)", d.Kind)
}

func (d Dist) compilePareto() (sampler, error) {
	if !(d.Min > 0) {
		return sampler{}, field.Errorf("min", "must be > 0, got %g", d.Min)
	}
	if !(d.Max > d.Min) {
		return sampler{}, field.Errorf("max", "must be > min (%g), got %g", d.Min, d.Max)
	}
	if !(d.Alpha > 0) {
		return sampler{}, field.Errorf("alpha", "must be > 0, got %g", d.Alpha)
	}
	p := newBoundedPareto(d.Min, d.Max, d.Alpha)
	return sampler{kind: kindPareto, a: p.Min, b: 1 - p.ratio, c: 1 / p.Alpha, clipped: clipped{meanValue: p.Mean()}}, nil
}

func (d Dist) compileEmpirical() (sampler, error) {
	if d.File == "" {
		return sampler{}, field.Errorf("file", "missing: an empirical distribution needs a request-trace file")
	}
	if d.Column != ColumnInput && d.Column != ColumnOutput {
		return sampler{}, field.Errorf("column", "want input or output, got %q", string(d.Column))
	}
	if d.Min != 0 || d.Max != 0 {
		return sampler{}, field.Errorf("min", "min and max do not apply to an empirical distribution")
	}
	if _, err := requestFormat(d.File, d.Format); err != nil {
		return sampler{}, field.Errorf("format", "%v", err)
	}
	col, err := empiricalValues(d)
	if err != nil {
		return sampler{}, field.Errorf("file", "%v", err)
	}
	return sampler{kind: kindEmpirical, clipped: clipped{meanValue: col.mean}, col: col}, nil
}

// clipped bounds exponential and lognormal draws to [min, max] (max 0
// or below: none) and keeps every kind's mean as the parameters give it
// (for these two Mean, or Median·exp(σ²/2), which exp(μ+σ²/2) may miss in
// the last bit). hi is max, or +Inf for none: apply then compares twice.
type clipped struct{ min, hi, meanValue float64 }

func clipOf(min, max, mean float64) clipped {
	hi := math.Inf(1)
	if max > 0 {
		hi = max
	}
	return clipped{min, hi, mean}
}

func (c clipped) apply(v float64) float64 {
	if v < c.min {
		v = c.min
	}
	if v > c.hi {
		v = c.hi
	}
	return v
}

// boundedPareto is the Pareto distribution with shape Alpha truncated to
// [Min, Max] (distuv.Pareto is unbounded).
type boundedPareto struct {
	Min, Max, Alpha float64
	ratio           float64 // (Min/Max)^Alpha
}

func newBoundedPareto(min, max, alpha float64) boundedPareto {
	return boundedPareto{Min: min, Max: max, Alpha: alpha, ratio: math.Pow(min/max, alpha)}
}

// Quantile is the inverse CDF at u in [0, 1].
func (p boundedPareto) Quantile(u float64) float64 {
	return p.Min / math.Pow(1-u*(1-p.ratio), 1/p.Alpha)
}

// Mean is the expected value.
func (p boundedPareto) Mean() float64 {
	a, l, h := p.Alpha, p.Min, p.Max
	if a == 1 {
		return h * l / (h - l) * math.Log(h/l)
	}
	return math.Pow(l, a) / (1 - math.Pow(l/h, a)) * a / (a - 1) * (1/math.Pow(l, a-1) - 1/math.Pow(h, a-1))
}

// unit is a uniform draw in [0, 1) from src.
func unit(src rand.Source) float64 {
	return float64(src.Uint64()<<11>>11) / (1 << 53)
}

// uint64n is a uniform draw in [0, n) from src (Lemire's method, unbiased).
// It stays rather than (*rand.Rand).Uint64N: that masks the low bits when n
// is a power of two (and takes a 32-bit path on 32-bit platforms), so its
// draws differ from these, and an empirical column of 2^k values would
// replay differently.
func uint64n(src rand.Source, n uint64) uint64 {
	hi, lo := bits.Mul64(src.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(src.Uint64(), n)
		}
	}
	return hi
}

// zigNormal is (*rand.Rand).NormFloat64 on src: the same ziggurat, tables
// and draws, with src's Uint64 called directly rather than through
// rand.Source.
func zigNormal(src *rand.PCG) float64 {
	u := src.Uint64()
	if x, ok := zigNormalStrip(u); ok {
		return x
	}
	return zigNormalFrom(src, u)
}

// zigNormalStrip is the draw from u when u falls inside its strip's
// rectangle (better than 99% of draws); ok is false otherwise.
func zigNormalStrip(u uint64) (x float64, ok bool) {
	j := int32(u) // possibly negative
	s := &zigNormalStrips[u>>32&0x7F]
	return float64(j) * float64(s.w), uint32(j)+s.lim>>1 < s.lim
}

// zigNormalStrips are zigWn and zigKn side by side, one 8-byte entry a
// strip (a draw reads one cache line, not one of each table), with
// |j| < zigKn[i] as one unsigned compare: uint32(j)+lim/2 < lim for lim
// = 2kn-1 (j in (-kn, kn) lands in [0, 2kn-1), any other j at or above
// it: kn < 2^31); a strip of kn 0 has lim 0, never inside.
var zigNormalStrips = func() (t [128]struct {
	w   float32
	lim uint32
}) {
	for i, kn := range zigKn {
		t[i].w = zigWn[i]
		if kn > 0 {
			t[i].lim = 2*kn - 1
		}
	}
	return t
}()

// zigNormalFrom is NormFloat64's loop from a first draw u that fell
// outside its rectangle.
func zigNormalFrom(src *rand.PCG, u uint64) float64 {
	const rn = 3.442619855899
	for {
		x, ok := zigNormalStrip(u)
		if ok {
			return x
		}
		j := int32(u) // possibly negative
		i := u >> 32 & 0x7F
		if i == 0 {
			for {
				x = -math.Log(unit(src)) * (1.0 / rn)
				y := -math.Log(unit(src))
				if y+y >= x*x {
					break
				}
			}
			if j > 0 {
				return rn + x
			}
			return -rn - x
		}
		if zigFn[i]+float32(unit(src))*(zigFn[i-1]-zigFn[i]) < float32(math.Exp(-.5*x*x)) {
			return x
		}
		u = src.Uint64()
	}
}

// zigExp is (*rand.Rand).ExpFloat64 on src, as zigNormal is NormFloat64.
func zigExp(src *rand.PCG) float64 {
	u := src.Uint64()
	if x, ok := zigExpStrip(u); ok {
		return x
	}
	return zigExpFrom(src, u)
}

// zigExpStrip is the draw from u when u falls inside its strip's
// rectangle (better than 98% of draws); ok is false otherwise.
func zigExpStrip(u uint64) (x float64, ok bool) {
	j := uint32(u)
	i := uint8(u >> 32)
	return float64(j) * float64(zigWe[i]), j < zigKe[i]
}

// zigExpFrom is ExpFloat64's loop from a first draw u that fell outside
// its rectangle.
func zigExpFrom(src rand.Source, u uint64) float64 {
	const re = 7.69711747013104972
	for {
		j := uint32(u)
		i := uint8(u >> 32)
		x := float64(j) * float64(zigWe[i])
		if j < zigKe[i] {
			return x
		}
		if i == 0 {
			return re - math.Log(unit(src))
		}
		if zigFe[i]+float32(unit(src))*(zigFe[i-1]-zigFe[i]) < float32(math.Exp(-x)) {
			return x
		}
		u = src.Uint64()
	}
}

// intN is (*rand.Rand).IntN(n) on src: the same draws (a mask for a power
// of two, Lemire's method otherwise), with src's Uint64 called directly
// (the generator's stream is its only user).
func intN(src *pcg, n int) int {
	if n <= 0 {
		panic("workloads: intN of a count below 1")
	}
	if is32bit && n == int(uint32(n)) {
		return rand.New(src).IntN(n) // 32-bit: rand's own 32-bit path
	}
	u := uint64(n)
	if u&(u-1) == 0 {
		return int(src.Uint64() & (u - 1))
	}
	hi, lo := bits.Mul64(src.Uint64(), u)
	if lo < u {
		thresh := -u % u
		for lo < thresh {
			hi, lo = bits.Mul64(src.Uint64(), u)
		}
	}
	return int(hi)
}

const is32bit = ^uint(0)>>32 == 0
