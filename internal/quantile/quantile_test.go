package quantile

import (
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat"
)

// TestRankMatchesGonum: the value at Rank is gonum's empirical quantile,
// for every n up to 300 and p on a grid plus the lab's percentiles.
func TestRankMatchesGonum(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	ps := []float64{0, 0.01, 0.07, 0.5, 0.9, 0.95, 0.99, 0.999, 1}
	for k := 1; k < 100; k++ {
		ps = append(ps, float64(k)/100)
	}
	for n := 1; n <= 300; n++ {
		x := make([]float64, n)
		for i := range x {
			x[i] = r.Float64()
		}
		slices.Sort(x)
		for _, p := range ps {
			if got, want := x[Rank(n, p)], stat.Quantile(p, stat.Empirical, x, nil); got != want {
				t.Fatalf("n=%d p=%g: x[Rank]=%g, gonum %g", n, p, got, want)
			}
		}
	}
}
