package workloads

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/evalsched/lab/internal/fastmath"
)

// The draws' shortcuts against the plain computations they replace: each
// must give the same values bit for bit, and leave the source in step.

// referenceNormalStrip is zigNormalStrip read from the ziggurat's own
// tables: the strip's width a float32, the bound on |j|.
func referenceNormalStrip(u uint64) (x float64, ok bool) {
	j := int32(u)
	i := u >> 32 & 0x7F
	return float64(j) * float64(zigWn[i]), absInt32(j) < zigKn[i]
}

func absInt32(i int32) uint32 {
	if i < 0 {
		return uint32(-i)
	}
	return uint32(i)
}

// TestNormalStripMatchesReference: for every strip, at and beside both
// bounds, at the extremes of j and over random draws, zigNormalStrip
// gives the reference's value and verdict.
func TestNormalStripMatchesReference(t *testing.T) {
	check := func(u uint64) {
		t.Helper()
		x, ok := zigNormalStrip(u)
		wx, wok := referenceNormalStrip(u)
		if ok != wok || math.Float64bits(x) != math.Float64bits(wx) {
			t.Fatalf("u %#x (strip %d, j %d): %v %v, reference %v %v", u, u>>32&0x7F, int32(u), x, ok, wx, wok)
		}
	}
	for i := range uint64(128) {
		kn := int64(zigKn[i])
		for _, j := range []int64{0, 1, -1, math.MinInt32, math.MaxInt32, kn - 2, kn - 1, kn, kn + 1, -kn + 1, -kn, -kn - 1, -kn - 2} {
			if j < math.MinInt32 || j > math.MaxInt32 {
				continue
			}
			for _, hi := range []uint64{0, 0x80, 0xffffff00} { // bits above the strip's index
				check((hi|i)<<32 | uint64(uint32(int32(j))))
			}
		}
	}
	src := rand.NewPCG(11, 12)
	for range 5_000_000 {
		check(src.Uint64())
	}
}

// TestClipMatchesReference: clipOf(min, max).apply is the clip to
// [min, max] with max 0 or below for none, for bounds and values at the
// edges (zero, negative, infinite, NaN).
func TestClipMatchesReference(t *testing.T) {
	reference := func(min, max, v float64) float64 {
		if v < min {
			v = min
		}
		if max > 0 && v > max {
			v = max
		}
		return v
	}
	inf, nan := math.Inf(1), math.NaN()
	values := []float64{0, math.Copysign(0, -1), 1, 2.5, 3, 1e6, -1, -inf, inf, nan, math.SmallestNonzeroFloat64, math.MaxFloat64}
	for _, min := range []float64{0, 1, 2.5, -3, inf, -inf} {
		for _, max := range []float64{0, 2.5, 3, 1e6, -1, inf, nan} {
			c := clipOf(min, max, 0)
			for _, v := range values {
				got, want := c.apply(v), reference(min, max, v)
				if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
					t.Errorf("min %v, max %v: apply(%v) = %v, reference %v", min, max, v, got, want)
				}
			}
		}
	}
}

// referenceDraw is a draw as (*rand.Rand) makes it from src, with each
// kind's formula written out: NormFloat64 and fastmath.Exp for a
// lognormal, ExpFloat64 for an exponential, the clip to [Min, Max] (Max
// 0: none), Float64 through the inverse CDF for uniform and Pareto.
func referenceDraw(d *Dist, src rand.Source) float64 {
	r := rand.New(src)
	clip := func(v float64) float64 {
		if v < d.Min {
			v = d.Min
		}
		if d.Max > 0 && v > d.Max {
			v = d.Max
		}
		return v
	}
	switch d.Kind {
	case DistLognormal:
		return clip(fastmath.Exp(math.Log(d.Median) + d.Sigma*r.NormFloat64()))
	case DistExponential:
		return clip(d.Mean * r.ExpFloat64())
	case DistUniform:
		return r.Float64()*(d.Max-d.Min) + d.Min
	case DistPareto:
		return d.Min / math.Pow(1-r.Float64()*(1-math.Pow(d.Min/d.Max, d.Alpha)), 1/d.Alpha)
	}
	return d.Value
}

// drawCases are the distributions the draw tests take: the costgate
// world's agent draws, each kind with and without bounds, and lognormals
// whose argument to Exp leaves its table's range.
func drawCases() []Dist {
	return append(samplerCases(),
		Dist{Kind: DistLognormal, Median: 3000, Sigma: 0.5},
		Dist{Kind: DistLognormal, Median: 500, Sigma: 0.7, Max: 8000},
		Dist{Kind: DistLognormal, Median: 800, Sigma: 0.8, Max: 20000},
		Dist{Kind: DistLognormal, Median: 8, Sigma: 1, Max: 600},
		Dist{Kind: DistLognormal, Median: 15000, Sigma: 0.6, Max: 120000},
		Dist{Kind: DistLognormal, Median: 300, Sigma: 0, Min: 2},
		Dist{Kind: DistLognormal, Median: 1e300, Sigma: 30},
		Dist{Kind: DistLognormal, Median: 1e-300, Sigma: 40, Min: 1e-310},
		Dist{Kind: DistExponential, Mean: 2.5, Max: -1},
		Dist{Kind: DistUniform, Min: 2, Max: 6},
	)
}

// TestDrawStreamsMatchReference: over many seeds, every kind draws from a
// PCG the values referenceDraw draws from the same stream, bit for bit,
// and leaves the stream where the reference does.
func TestDrawStreamsMatchReference(t *testing.T) {
	for i, d := range drawCases() {
		t.Run(fmt.Sprintf("%d-%s", i, d.Kind), func(t *testing.T) {
			if err := d.compileAt("d"); err != nil {
				t.Fatal(err)
			}
			for seed := range uint64(400) {
				got, want := rand.NewPCG(seed, seed*0x9e3779b97f4a7c15), rand.NewPCG(seed, seed*0x9e3779b97f4a7c15)
				for k := range 2_000 {
					g, w := d.draw(got), referenceDraw(&d, opaqueSource{want})
					if math.Float64bits(g) != math.Float64bits(w) && !(math.IsNaN(g) && math.IsNaN(w)) {
						t.Fatalf("seed %d, draw %d: %v, reference %v", seed, k, g, w)
					}
				}
				if got.Uint64() != want.Uint64() {
					t.Fatalf("seed %d: the streams are out of step", seed)
				}
			}
		})
	}
}
