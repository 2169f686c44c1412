package results

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// kmByRedistribution is Efron's redistribute-to-the-right construction of
// the same estimate, written without the product: every observation starts
// with mass 1/n; in time order (an ended duration before a censored one at
// the same time), a censored observation hands its mass on in equal parts
// to every observation after it. The distribution function at t is the
// mass of the ended durations at or below t; the q-quantile the smallest
// ended duration where it reaches q.
func kmByRedistribution(ended, censored []float64, q float64) float64 {
	type obs struct {
		t     float64
		ended bool
	}
	var all []obs
	for _, t := range ended {
		all = append(all, obs{t, true})
	}
	for _, t := range censored {
		all = append(all, obs{t, false})
	}
	slices.SortStableFunc(all, func(a, b obs) int {
		switch {
		case a.t < b.t:
			return -1
		case a.t > b.t:
			return 1
		case a.ended && !b.ended:
			return -1
		case !a.ended && b.ended:
			return 1
		}
		return 0
	})
	mass := make([]float64, len(all))
	for i := range mass {
		mass[i] = 1 / float64(len(all))
	}
	for i, o := range all {
		if o.ended || i == len(all)-1 {
			continue
		}
		share := mass[i] / float64(len(all)-1-i)
		for j := i + 1; j < len(all); j++ {
			mass[j] += share
		}
		mass[i] = 0
	}
	f := 0.0
	for i, o := range all {
		if !o.ended {
			continue
		}
		f += mass[i]
		// the whole tie at o.t first
		if i+1 < len(all) && all[i+1].t == o.t && all[i+1].ended {
			continue
		}
		if f >= q-1e-12 {
			return o.t
		}
	}
	return -1
}

// TestKMAgainstRedistribution: on generated samples with ties, heavy
// censoring and none, the product limit's quantiles equal those of the
// redistribution construction.
func TestKMAgainstRedistribution(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	for trial := range 400 {
		n := 1 + rng.IntN(60)
		censorP := []float64{0, 0.2, 0.5, 0.9}[trial%4]
		var ended, cens []float64
		for range n {
			// integer times: ties between ended and censored durations
			x := float64(1 + rng.IntN(20))
			if rng.Float64() < censorP {
				cens = append(cens, x)
			} else {
				ended = append(ended, x)
			}
		}
		w50 := kmByRedistribution(ended, cens, 0.5)
		w90 := kmByRedistribution(ended, cens, 0.9)
		k := NewKM(Survival{Ended: slices.Clone(ended), Censored: slices.Clone(cens)})
		if k.P50 != w50 || k.P90 != w90 || k.Ended != len(ended) || k.Censored != len(cens) {
			t.Fatalf("trial %d: ended %v censored %v: KM p50 %v p90 %v (%d/%d); redistribution %v %v",
				trial, ended, cens, k.P50, k.P90, k.Ended, k.Censored, w50, w90)
		}
	}
}

// TestKMExponentialClosedForm: durations exponential with rate λ, censored
// by an independent exponential with rate μ (so a share μ/(λ+μ) is
// censored): the estimate's median and 90th percentile converge to the
// durations' own, ln 2/λ and ln 10/λ, while the median of the ended ones
// alone is that of min(duration, censoring), ln 2/(λ+μ) — the bias the
// estimate exists to remove. The tolerance is five standard errors of the
// KM quantile (Greenwood's variance of S at the quantile, over the density
// there).
func TestKMExponentialClosedForm(t *testing.T) {
	const lambda, mu, n = 1.0 / 600, 1.0 / 900, 200_000
	rng := rand.New(rand.NewPCG(1, 2))
	var ended, cens []float64
	for range n {
		x, c := rng.ExpFloat64()/lambda, rng.ExpFloat64()/mu
		if x <= c {
			ended = append(ended, x)
		} else {
			cens = append(cens, c)
		}
	}
	naive := NewStats(slices.Clone(ended)).P50
	k := NewKM(Survival{Ended: ended, Censored: cens})
	for _, c := range []struct {
		q, got float64
	}{{0.5, k.P50}, {0.9, k.P90}} {
		want := -math.Log(1-c.q) / lambda
		s := 1 - c.q
		// Greenwood: Var S(t) ≈ S² ∫ λ/(n·P(at risk)) = S²·(e^{(λ+μ)t} − 1)·λ/((λ+μ)n)
		varS := s * s * (math.Exp((lambda+mu)*want) - 1) * lambda / ((lambda + mu) * n)
		se := math.Sqrt(varS) / (lambda * s) // density at the quantile: λ·S
		if math.Abs(c.got-want) > 5*se {
			t.Errorf("q %.1f: KM %.1f s, closed form %.1f s (5 SE = %.1f s)", c.q, c.got, want, 5*se)
		}
		t.Logf("q %.1f: KM %.1f s, closed form %.1f s, SE %.2f s", c.q, c.got, want, se)
	}
	if want := math.Ln2 / (lambda + mu); math.Abs(naive-want) > 0.03*want {
		t.Errorf("median of the ended alone %.1f s, expected ln2/(λ+μ) = %.1f s", naive, want)
	}
	if k.Censored < n/3 || k.Ended+k.Censored != n {
		t.Errorf("%d ended, %d censored", k.Ended, k.Censored)
	}
}

// TestKMUnreached: with more than half censored above every ended
// duration, the median is not reached (-1) and reads as more than the
// longest observed.
func TestKMUnreached(t *testing.T) {
	k := NewKM(Survival{Ended: []float64{10, 20}, Censored: []float64{30, 40, 50}})
	if k.P50 != -1 || k.P90 != -1 || k.MaxObserved != 50 {
		t.Fatalf("%+v", k)
	}
	if got := k.Quantile(k.P50); got != "> 50.0" {
		t.Errorf("printed %q", got)
	}
	if k := NewKM(Survival{}); k.Quantile(k.P50) != "-" {
		t.Errorf("empty sample printed %q", k.Quantile(k.P50))
	}
}
