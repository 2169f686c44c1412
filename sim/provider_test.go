package sim

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/evalsched/lab/scenario"
	"gonum.org/v1/gonum/stat/distuv"
)

// TestJitterQuantiles: the lognormal latency factor is gonum's LogNormal
// quantile of mean 1, bit for bit the formula it replaced; the exponential
// one keeps -log1p(-u), which gonum's Exponential.Quantile (-log(1-u)) does
// not reproduce bit for bit (the reason it is not used).
func TestJitterQuantiles(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	cv := 0.7 // a variable: constant arithmetic would be exact, not rounded
	us := []float64{0, 1e-12, 0.5, 1 - 1e-12, 1}
	for range 200000 {
		us = append(us, r.Float64())
	}
	for _, tc := range []struct {
		name      string
		cfg       scenario.JitterConfig
		formula   func(u float64) float64
		gonum     func(u float64) float64
		wantEqual bool
	}{
		{"lognormal", scenario.JitterConfig{Dist: "lognormal", CV: cv}, func(u float64) float64 {
			sigma := math.Sqrt(math.Log1p(cv * cv))
			return math.Exp(-sigma*sigma/2 + sigma*distuv.UnitNormal.Quantile(u))
		}, nil, true},
		{"exponential", scenario.JitterConfig{Dist: "exponential"}, func(u float64) float64 { return -math.Log1p(-u) },
			distuv.Exponential{Rate: 1}.Quantile, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			differ, jit := 0, compileJitter(tc.cfg)
			for _, u := range us {
				got := jit.factor(u)
				u = math.Min(math.Max(u, 1e-12), 1-1e-12)
				if want := tc.formula(u); got != want {
					t.Fatalf("jitter(%v) = %v, want %v (the formula)", u, got, want)
				}
				if tc.gonum != nil && tc.gonum(u) != got {
					differ++
				}
			}
			if tc.gonum != nil && (differ == 0) != tc.wantEqual {
				t.Errorf("gonum differs on %d of %d draws; bit-identical expected: %v", differ, len(us), tc.wantEqual)
			}
		})
	}
}
