package results

import (
	"math"
	"strconv"
)

// Survival is a sample of durations some of which were still running at the
// end of the run (right-censored): a batch not finished, a job still
// waiting, a project that had not reached its share. Dropping the censored
// ones would keep only the durations short enough to end inside the run;
// counting them as ended at the end would shorten them. The Kaplan–Meier
// (product-limit) estimate uses them for what they are: durations of at
// least their censoring time.
type Survival struct {
	// Ended are the durations that ended; Censored the durations observed
	// so far of those that had not (seconds). Neither is in any order.
	Ended, Censored []float64
}

// KM is the Kaplan–Meier summary of a Survival sample: how many ended and
// how many were censored, the median and 90th percentile, and the longest
// duration observed (ended or censored). A percentile the estimate does not
// reach (more of the sample censored than lies above it) is -1: read it as
// "more than MaxObserved".
type KM struct {
	Ended       int     `json:"finished"`
	Censored    int     `json:"censored"`
	P50         float64 `json:"p50_s"`
	P90         float64 `json:"p90_s"`
	MaxObserved float64 `json:"max_observed_s"`
}

// NewKM estimates the survival function S(t) = P(duration > t) by the
// product limit over the distinct ended durations t₁ < t₂ < …:
//
//	S(t) = Π_{tᵢ ≤ t} (1 − dᵢ/nᵢ)
//
// where dᵢ ended at tᵢ and nᵢ were still at risk just before it (ended or
// censored at tᵢ or later: a duration censored at tᵢ counts as at risk at
// tᵢ). The q-quantile is the smallest ended duration t with S(t) ≤ 1 − q.
// It sorts both slices in place.
func NewKM(s Survival) KM {
	ended, cens := s.Ended, s.Censored
	sortFloats(ended)
	sortFloats(cens)
	k := KM{Ended: len(ended), Censored: len(cens), P50: -1, P90: -1}
	if n := len(ended); n > 0 {
		k.MaxObserved = ended[n-1]
	}
	if n := len(cens); n > 0 {
		k.MaxObserved = max(k.MaxObserved, cens[n-1])
	}
	atRisk := len(ended) + len(cens)
	surv := 1.0
	c := 0 // censored durations below the current time, already out of the risk set
	for i := 0; i < len(ended); {
		t := ended[i]
		for c < len(cens) && cens[c] < t {
			c++
			atRisk--
		}
		d := 0
		for i < len(ended) && ended[i] == t {
			d++
			i++
		}
		surv *= 1 - float64(d)/float64(atRisk)
		atRisk -= d
		// A relative tolerance: the product of many factors lands a rounding
		// error away from an exact 1 − q.
		if k.P50 < 0 && surv <= 0.5+1e-12 {
			k.P50 = t
		}
		if k.P90 < 0 && surv <= 0.1+1e-12 {
			k.P90 = t
			break
		}
	}
	return k
}

// Quantile reads a KM percentile for printing: "-" when nothing was
// observed, "> max" when the estimate does not reach it.
func (k KM) Quantile(v float64) string {
	switch {
	case k.Ended+k.Censored == 0:
		return "-"
	case v < 0:
		return "> " + formatSeconds(k.MaxObserved)
	}
	return formatSeconds(v)
}

func formatSeconds(v float64) string {
	if math.Abs(v) >= 100 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}
