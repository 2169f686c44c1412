package workloads

import (
	"fmt"
	"math"
	"time"

	"github.com/evalsched/lab/internal/field"
)

// Profile shapes a batch process's Poisson rate over the week. The run's
// virtual time 0 reads Start on a week clock that begins Monday 00:00; at
// virtual time t the rate is
//
//	rate_per_hour × hourly[hour of day] / mean(hourly) × weekday[day of week] / mean(weekday)
//
// so weights are relative and rate_per_hour stays the long-run mean over a
// whole week. An empty list is flat. The arrivals are a non-homogeneous
// Poisson process drawn by thinning: candidates at the peak rate, each kept
// with probability rate(t) / peak, so a flat profile draws exactly the
// arrivals of no profile.
type Profile struct {
	Hourly  []float64     `yaml:"hourly" json:"hourly,omitempty"`   // 24 weights, hours 0..23
	Weekday []float64     `yaml:"weekday" json:"weekday,omitempty"` // 7 weights, Monday..Sunday
	Start   time.Duration `yaml:"start" json:"start,omitempty"`     // week clock at t = 0 (e.g. 33h = Tuesday 09:00)

	hourly, weekday []float64 // weight / mean, exactly 1 when flat; set by compile
	peak            float64   // max(hourly) × max(weekday)
}

// compile checks the profile and normalises its weights. Errors are
// *field.Error under path.
func (p *Profile) compile(path string) error {
	if p.Start < 0 {
		return field.Errorf(path+".start", "must be >= 0, got %v", p.Start)
	}
	var err error
	var hmax, dmax float64
	if p.hourly, hmax, err = factors(path+".hourly", p.Hourly, 24); err != nil {
		return err
	}
	if p.weekday, dmax, err = factors(path+".weekday", p.Weekday, 7); err != nil {
		return err
	}
	p.peak = hmax * dmax
	return nil
}

// CheckWeights checks a list of n relative weights (empty: flat) as a
// profile does: each finite and >= 0, adding up to more than 0. Errors are
// *field.Error at path.
func CheckWeights(path string, w []float64, n int) error {
	_, _, err := factors(path, w, n)
	return err
}

// factors turns n relative weights (or none: flat) into weight / mean and
// returns the largest. A flat list gives exactly 1 everywhere.
func factors(path string, w []float64, n int) ([]float64, float64, error) {
	if len(w) == 0 {
		return nil, 1, nil
	}
	if len(w) != n {
		return nil, 0, field.Errorf(path, "needs %d weights, got %d", n, len(w))
	}
	sum, flat := 0.0, true
	for i, x := range w {
		if !(x >= 0) || math.IsInf(x, 0) {
			return nil, 0, field.Errorf(fmt.Sprintf("%s[%d]", path, i), "must be >= 0 and finite, got %g", x)
		}
		sum += x
		flat = flat && x == w[0]
	}
	if !(sum > 0) || math.IsInf(sum, 0) {
		return nil, 0, field.Errorf(path, "weights must add up to a finite number > 0")
	}
	f := make([]float64, n)
	top := 0.0
	for i, x := range w {
		f[i] = 1
		if !flat {
			f[i] = x / (sum / float64(n))
		}
		top = max(top, f[i])
	}
	return f, top, nil
}

// factor is the rate multiplier at virtual time t.
func (p *Profile) factor(t time.Duration) float64 {
	clock := p.Start + t
	f := 1.0
	if p.hourly != nil {
		f *= p.hourly[int((clock/time.Hour)%24)]
	}
	if p.weekday != nil {
		f *= p.weekday[int((clock/(24*time.Hour))%7)]
	}
	return f
}

// Factor is the rate multiplier of the profile at virtual time t: the rate
// there is rate_per_hour × Factor(t). Config.Validate compiles the profile;
// an empty one is flat (1 everywhere).
func (p *Profile) Factor(t time.Duration) float64 { return p.factor(t) }
