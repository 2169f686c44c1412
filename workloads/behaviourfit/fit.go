package behaviourfit

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/evalsched/lab/workloads"
)

// MinSample is the fewest values a distribution is fitted to; below it
// the quantity is written as a fixed value at the sample's mean.
const MinSample = 8

// Candidate is one family fitted to a sample by maximum likelihood.
type Candidate struct {
	Dist   workloads.Dist
	LogL   float64
	Params int
	AIC    float64 // 2·Params − 2·LogL
	Why    string  // non-empty when the family does not apply
}

// Fit is the distribution chosen for a sample and the reason.
type Fit struct {
	Name       string
	N          int
	Mean       float64
	Dist       workloads.Dist
	Criterion  string // how Dist was chosen
	Candidates []Candidate
	Values     []float64 // sorted
}

// FitSample fits every family workloads.Dist can draw (uniform,
// exponential, lognormal, bounded Pareto) by maximum likelihood and keeps
// the one of least AIC. Fewer than MinSample values, or values that are
// all equal, give a fixed distribution at the mean.
func FitSample(name string, xs []float64) Fit { return fitSample(name, xs, false) }

// FitCounts is FitSample for counts (turns, calls per turn), which the
// simulator draws as max(1, round(X)): each family is fitted as FitSample
// fits it (a uniform widened by half a unit each side, so its end values
// are as likely as the others, but not below 1), and its likelihood is that of the counts
// under the rounded draw, P(round(X) = k), so families and the phase
// split are compared on what the simulator would produce.
func FitCounts(name string, xs []float64) Fit { return fitSample(name, xs, true) }

func fitSample(name string, xs []float64, counts bool) Fit {
	v := slices.Clone(xs)
	slices.Sort(v)
	f := Fit{Name: name, N: len(v), Values: v}
	if len(v) == 0 {
		f.Dist, f.Criterion = workloads.Fixed(0), "no values: fixed at 0"
		return f
	}
	f.Mean = mean(v)
	fixed, rounded := round6(f.Mean), ""
	if counts {
		fixed, rounded = math.Max(1, math.Round(f.Mean)), ", rounded (a count)"
	}
	switch {
	case len(v) < MinSample:
		f.Dist, f.Criterion = workloads.Fixed(fixed), fmt.Sprintf("fewer than %d values: fixed at their mean%s", MinSample, rounded)
		return f
	case v[0] == v[len(v)-1]:
		f.Dist, f.Criterion = workloads.Fixed(fixed), "every value equal: fixed"
		return f
	}
	f.Candidates = []Candidate{fitUniform(v), fitExponential(v), fitLognormal(v), fitPareto(v)}
	if counts {
		for i := range f.Candidates {
			f.Candidates[i] = countLikelihood(f.Candidates[i], v)
		}
	}
	best := -1
	for i, c := range f.Candidates {
		if c.Why == "" && (best < 0 || c.AIC < f.Candidates[best].AIC) {
			best = i
		}
	}
	f.Dist, f.Criterion = f.Candidates[best].Dist, "least AIC among uniform, exponential, lognormal and bounded Pareto (maximum-likelihood fits)"
	return f
}

func mean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

func aic(c Candidate) Candidate {
	c.AIC = 2*float64(c.Params) - 2*c.LogL
	return c
}

func fitUniform(v []float64) Candidate {
	lo, hi := v[0], v[len(v)-1]
	if lo < 0 {
		return Candidate{Dist: workloads.Dist{Kind: "uniform"}, Why: "negative values"}
	}
	return aic(Candidate{Dist: workloads.Dist{Kind: "uniform", Min: round6(lo), Max: round6(hi)},
		LogL: -float64(len(v)) * math.Log(hi-lo), Params: 2})
}

func fitExponential(v []float64) Candidate {
	m := mean(v)
	if v[0] < 0 || !(m > 0) {
		return Candidate{Dist: workloads.Dist{Kind: "exponential"}, Why: "values not all >= 0 with a positive mean"}
	}
	n := float64(len(v))
	return aic(Candidate{Dist: workloads.Dist{Kind: "exponential", Mean: round6(m)}, LogL: -n*math.Log(m) - n, Params: 1})
}

func fitLognormal(v []float64) Candidate {
	if !(v[0] > 0) {
		return Candidate{Dist: workloads.Dist{Kind: "lognormal"}, Why: "values not all > 0"}
	}
	n := float64(len(v))
	mu, sumLog := 0.0, 0.0
	for _, x := range v {
		mu += math.Log(x)
	}
	sumLog = mu
	mu /= n
	ss := 0.0
	for _, x := range v {
		d := math.Log(x) - mu
		ss += d * d
	}
	sigma := math.Sqrt(ss / n)
	if !(sigma > 0) {
		return Candidate{Dist: workloads.Dist{Kind: "lognormal"}, Why: "no spread"}
	}
	logL := -sumLog - n*math.Log(sigma*math.Sqrt(2*math.Pi)) - n/2
	return aic(Candidate{Dist: workloads.Dist{Kind: "lognormal", Median: round6(math.Exp(mu)), Sigma: round6(sigma)}, LogL: logL, Params: 2})
}

// fitPareto fits a bounded Pareto on [min, max] of the sample; alpha
// maximises the likelihood (a golden-section search: the log-likelihood
// is concave in alpha).
func fitPareto(v []float64) Candidate {
	lo, hi := v[0], v[len(v)-1]
	if !(lo > 0) || !(hi > lo) {
		return Candidate{Dist: workloads.Dist{Kind: "pareto"}, Why: "values not all > 0"}
	}
	n := float64(len(v))
	sumLog := 0.0
	for _, x := range v {
		sumLog += math.Log(x)
	}
	logL := func(a float64) float64 {
		return n*math.Log(a) + n*a*math.Log(lo) - (a+1)*sumLog - n*math.Log(1-math.Pow(lo/hi, a))
	}
	a, b := 1e-4, 50.0
	g := (math.Sqrt(5) - 1) / 2
	for range 200 {
		c, d := b-g*(b-a), a+g*(b-a)
		if logL(c) > logL(d) {
			b = d
		} else {
			a = c
		}
	}
	alpha := (a + b) / 2
	return aic(Candidate{Dist: workloads.Dist{Kind: "pareto", Min: round6(lo), Max: round6(hi), Alpha: round6(alpha)}, LogL: logL(alpha), Params: 3})
}

// countLikelihood replaces a candidate's likelihood with that of counts
// drawn as max(1, round(X)).
func countLikelihood(c Candidate, v []float64) Candidate {
	if c.Why != "" {
		return c
	}
	if c.Dist.Kind == "uniform" {
		// Not below 1: a count of 1 takes every draw under 1.5 anyway, and
		// the simulator wants fan-out and turns of at least 1.
		c.Dist.Min, c.Dist.Max = math.Max(1, c.Dist.Min-0.5), c.Dist.Max+0.5
	}
	logL := 0.0
	for _, x := range v {
		k := math.Round(x)
		lo := CDF(c.Dist, k-0.5)
		if k <= 1 {
			lo = 0
		}
		p := CDF(c.Dist, k+0.5) - lo
		if !(p > 0) {
			return Candidate{Dist: c.Dist, Why: fmt.Sprintf("gives no chance to the count %g", k)}
		}
		logL += math.Log(p)
	}
	c.LogL = logL
	return aic(c)
}

// round6 keeps six significant digits: what the YAML shows.
func round6(x float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 6, 64), 64)
	return r
}

// CDF is the fitted distribution's CDF at x (before the rounding of
// counts and the clipping the simulator applies).
func CDF(d workloads.Dist, x float64) float64 {
	switch d.Kind {
	case "fixed":
		if x < d.Value {
			return 0
		}
		return 1
	case "uniform":
		if d.Max <= d.Min {
			return step(x >= d.Min)
		}
		return math.Min(1, math.Max(0, (x-d.Min)/(d.Max-d.Min)))
	case "exponential":
		if x <= 0 {
			return 0
		}
		return 1 - math.Exp(-x/d.Mean)
	case "lognormal":
		if x <= 0 {
			return 0
		}
		return 0.5 * math.Erfc(-(math.Log(x)-math.Log(d.Median))/(d.Sigma*math.Sqrt2))
	case "pareto":
		switch {
		case x <= d.Min:
			return 0
		case x >= d.Max:
			return 1
		}
		return (1 - math.Pow(d.Min/x, d.Alpha)) / (1 - math.Pow(d.Min/d.Max, d.Alpha))
	}
	return math.NaN()
}

func step(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
