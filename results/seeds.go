package results

import (
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// NearZeroCompleted is the fewest jobs a baseline lane must complete in
// the window on a seed for that seed's multiplier to count: below it the
// Ratio is dominated by counting noise (1 job against 10 reads as 10×), so
// such seeds are reported as near zero, never as ratios.
const NearZeroCompleted = 5

// MultiplierStat is one lane's throughput multiplier over several seeds:
// the geometric mean of the per-seed ratios (new ÷ old on the same seed)
// and a 95% interval from Student's t on their logarithms, mapped back to
// ratios (see LogRatioCI). Seeds whose baseline completed fewer than
// NearZeroCompleted jobs on the lane are left out and counted in
// NearZeroSeeds; with fewer than two usable seeds there is no interval
// (ci95_low and ci95_high are absent), and with none no mean either (the
// lane is listed with seeds 0 if the baseline completed any job on it).
type MultiplierStat struct {
	Model string `json:"model"`
	RatioStat
	NearZeroSeeds int `json:"near_zero_seeds,omitempty"`
	// Tokens is the token multiplier (new ÷ old tokens answered per hour)
	// over the same seeds; nil when no seed had tokens on both sides.
	Tokens *RatioStat `json:"tokens,omitempty"`
}

// RatioStat is a ratio's geometric mean over seeds and its 95% interval
// (LogRatioCI; no interval with fewer than two seeds, no mean with none).
type RatioStat struct {
	Seeds int      `json:"seeds"`
	Mean  float64  `json:"mean"`
	Low   *float64 `json:"ci95_low,omitempty"`
	High  *float64 `json:"ci95_high,omitempty"`
}

func newRatioStat(xs []float64) RatioStat {
	s := RatioStat{Seeds: len(xs)}
	if len(xs) > 0 {
		g, lo, hi, ok := LogRatioCI(xs, 0.95)
		s.Mean = g
		if ok {
			s.Low, s.High = &lo, &hi
		}
	}
	return s
}

// Cells are the stat as text: the mean and the interval's bounds ("-"
// without an interval); "-" for none.
func (s *RatioStat) Cells(unit string) (mean, low, high string) {
	if s == nil {
		return "-", "-", "-"
	}
	if s.Low == nil || s.High == nil {
		return MultiplierText(&s.Mean, unit), "-", "-"
	}
	return MultiplierText(&s.Mean, unit), MultiplierText(s.Low, unit), MultiplierText(s.High, unit)
}

// LogRatioCI is the paired log-ratio estimator: with l_i = ln(ratio_i), the
// geometric mean exp(mean l) and the interval exp(mean l ± t(level, n−1) ·
// sd(l)/√n). Bounds are always positive and swapping old and new inverts
// them. ok is false (no interval) with fewer than two ratios; every ratio
// must be positive.
func LogRatioCI(ratios []float64, level float64) (gmean, low, high float64, ok bool) {
	if len(ratios) == 0 {
		return 0, 0, 0, false
	}
	logs := make([]float64, len(ratios))
	for i, r := range ratios {
		logs[i] = math.Log(r)
	}
	m := stat.Mean(logs, nil)
	if len(logs) < 2 {
		return math.Exp(m), 0, 0, false
	}
	half := TQuantile(level, len(logs)-1) * stat.StdDev(logs, nil) / math.Sqrt(float64(len(logs)))
	return math.Exp(m), math.Exp(m - half), math.Exp(m + half), true
}

// TQuantile is the two-sided Student's t critical value for a level (0.95)
// with df degrees of freedom.
func TQuantile(level float64, df int) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}.Quantile(0.5 + level/2)
}

// seedRatio is one seed's multiplier for a lane, or near is true when its
// baseline is near zero. A lane the new policy completed nothing on (and the
// baseline did) counts as half a job, so its log stays finite.
func seedRatio(r LaneComparison) (ratio float64, near bool) {
	if r.OldCompleted < NearZeroCompleted || r.OldPerHour <= 0 {
		return 0, true
	}
	if r.NewCompleted == 0 || r.NewPerHour <= 0 {
		return 0.5 / float64(r.OldCompleted), false
	}
	return r.NewPerHour / r.OldPerHour, false
}

// MultiplierCI summarises per-seed comparisons, lane by lane, in the order
// lanes first appear.
func MultiplierCI(perSeed [][]LaneComparison) []MultiplierStat {
	if len(perSeed) == 0 {
		return nil
	}
	values, tokens := map[string][]float64{}, map[string][]float64{}
	near := map[string]int{}
	someOld := map[string]bool{} // the baseline completed any job on some seed
	var order []string
	for _, rows := range perSeed {
		for _, r := range rows {
			if _, seen := values[r.Model]; !seen {
				values[r.Model] = nil
				order = append(order, r.Model)
			}
			someOld[r.Model] = someOld[r.Model] || r.OldCompleted > 0
			if x, nz := seedRatio(r); nz {
				near[r.Model]++
			} else {
				values[r.Model] = append(values[r.Model], x)
				if r.TokenMultiplier != nil && *r.TokenMultiplier > 0 {
					tokens[r.Model] = append(tokens[r.Model], *r.TokenMultiplier)
				}
			}
		}
	}
	var out []MultiplierStat
	for _, m := range order {
		s := MultiplierStat{Model: m, RatioStat: newRatioStat(values[m]), NearZeroSeeds: near[m]}
		if s.Seeds == 0 && !someOld[m] {
			continue // the baseline never ran it: nothing to report
		}
		if t := newRatioStat(tokens[m]); t.Seeds > 0 {
			s.Tokens = &t
		}
		out = append(out, s)
	}
	return out
}

// Cells are the stat as text: the mean and the interval's bounds ("-"
// without an interval), or "baseline near zero" for the mean when no seed
// was usable.
func (s MultiplierStat) Cells(unit string) (mean, low, high string) {
	if s.Seeds == 0 {
		return "baseline near zero", "-", "-"
	}
	return s.RatioStat.Cells(unit)
}
