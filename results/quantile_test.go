package results

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat"
)

// TestEmpiricalQuantileMatchesGonum: empiricalQuantile reads the index that
// gonum's running count stops at, for every size up to 300 and sizes past
// the radix sort's threshold, at the summary's percentiles, the ends and
// random ones, on samples with ties, negative zeros and NaNs.
func TestEmpiricalQuantileMatchesGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	ps := []float64{0, 1e-9, 0.01, 0.5, 0.9, 0.99, 0.999, 1 - 1e-12, 1}
	sizes := []int{}
	for n := 1; n <= 300; n++ {
		sizes = append(sizes, n)
	}
	sizes = append(sizes, radixMin-1, radixMin, radixMin+1, 4096, 10007, 100000)
	for _, n := range sizes {
		for _, kind := range []string{"spread", "ties", "nan"} {
			xs := make([]float64, n)
			for i := range xs {
				switch kind {
				case "ties":
					xs[i] = float64(rng.IntN(4)) * 0.25
				default:
					xs[i] = rng.NormFloat64() * 100
				}
			}
			if kind == "nan" {
				xs[rng.IntN(n)] = math.NaN()
			}
			sortFloats(xs)
			for _, p := range append(ps, rng.Float64(), rng.Float64()) {
				want := stat.Quantile(p, stat.Empirical, xs, nil)
				got := empiricalQuantile(p, xs)
				if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
					t.Fatalf("n=%d %s p=%v: got %v, gonum %v", n, kind, p, got, want)
				}
			}
		}
	}
}
