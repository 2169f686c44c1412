package results

import (
	"cmp"
	"fmt"
	"slices"
)

// LaneComparison sets one lane's results under the baseline ("old") and the
// candidate ("new") side by side. Multiplier = new ÷ old throughput; null in
// JSON when the baseline completed nothing.
type LaneComparison struct {
	Model      string   `json:"model"`
	OldPerHour float64  `json:"old_throughput_per_hour"`
	NewPerHour float64  `json:"new_throughput_per_hour"`
	Multiplier *float64 `json:"multiplier"`
	// The lanes' tokens per hour and their ratio (new ÷ old; null when the
	// old lane served none).
	OldTokensPerHour float64  `json:"old_tokens_per_hour"`
	NewTokensPerHour float64  `json:"new_tokens_per_hour"`
	TokenMultiplier  *float64 `json:"token_multiplier"`
	OldP90           float64  `json:"old_p90_job_time_s"`
	NewP90           float64  `json:"new_p90_job_time_s"`
	OldWaitShare     float64  `json:"old_p90_wait_share"`
	NewWaitShare     float64  `json:"new_p90_wait_share"`
	OldGatewayCtrH   float64  `json:"old_gateway_wait_container_hours"`
	NewGatewayCtrH   float64  `json:"new_gateway_wait_container_hours"`
	// With billing: dollars per completed job, old and new, and new ÷ old
	// (null when the old lane completed nothing).
	OldDollarsPerJob *float64 `json:"old_dollars_per_job,omitempty"`
	NewDollarsPerJob *float64 `json:"new_dollars_per_job,omitempty"`
	CostPerJobRatio  *float64 `json:"cost_per_job_ratio,omitempty"`
	// OldCompleted and NewCompleted are the lane's completed jobs in the
	// window (not in JSON): MultiplierCI tells near-zero baselines by them.
	OldCompleted, NewCompleted int64 `json:"-"`
}

// Compare pairs the lanes of two runs by model, busiest (new) first.
func Compare(old, new Run) []LaneComparison {
	oldBy := map[string]Lane{}
	for _, l := range old.Lanes {
		oldBy[l.Model] = l
	}
	seen := map[string]bool{}
	var out []LaneComparison
	add := func(o, n Lane) {
		c := LaneComparison{Model: n.Model, OldPerHour: o.ThroughputPerHour, NewPerHour: n.ThroughputPerHour,
			OldP90: o.JobTime.Total.P90, NewP90: n.JobTime.Total.P90, OldWaitShare: o.P90WaitShare, NewWaitShare: n.P90WaitShare,
			OldGatewayCtrH: o.GatewayWaitContainerSeconds / 3600, NewGatewayCtrH: n.GatewayWaitContainerSeconds / 3600,
			OldCompleted: o.Completed, NewCompleted: n.Completed,
			OldTokensPerHour: o.TokensPerHour, NewTokensPerHour: n.TokensPerHour,
			Multiplier: RatioOf(n.ThroughputPerHour, o.ThroughputPerHour), TokenMultiplier: RatioOf(n.TokensPerHour, o.TokensPerHour)}
		if c.Model == "" {
			c.Model = o.Model
		}
		if o.Bill != nil || n.Bill != nil {
			var ob, nb Bill
			if o.Bill != nil {
				ob = *o.Bill
			}
			if n.Bill != nil {
				nb = *n.Bill
			}
			c.OldDollarsPerJob, c.NewDollarsPerJob = &ob.DollarsPerJob, &nb.DollarsPerJob
			c.CostPerJobRatio = RatioOf(nb.DollarsPerJob, ob.DollarsPerJob)
		}
		out = append(out, c)
	}
	for _, n := range new.Lanes {
		seen[n.Model] = true
		add(oldBy[n.Model], n)
	}
	for _, o := range old.Lanes {
		if !seen[o.Model] {
			add(o, Lane{})
		}
	}
	slices.SortStableFunc(out, func(a, b LaneComparison) int { return cmp.Compare(b.NewPerHour, a.NewPerHour) })
	return out
}

// GroupComparisons compares the runs' group rows: the evaluation total
// ("(all)", Run.Total) and, when either run has grading lanes, the grading
// total ("(grading)", Run.Grading), in that order.
func GroupComparisons(old, new Run) []LaneComparison {
	all := Compare(Run{Lanes: []Lane{old.Total}}, Run{Lanes: []Lane{new.Total}})[0]
	all.Model = AllLanes
	out := []LaneComparison{all}
	if old.Grading != nil || new.Grading != nil {
		g := Compare(Run{Lanes: []Lane{groupOrEmpty(old.Grading)}}, Run{Lanes: []Lane{groupOrEmpty(new.Grading)}})[0]
		g.Model = GradingLanes
		out = append(out, g)
	}
	return out
}

// IsGroupRow says whether model names a group row (AllLanes, GradingLanes)
// rather than a lane.
func IsGroupRow(model string) bool { return model == AllLanes || model == GradingLanes }

func groupOrEmpty(l *Lane) Lane {
	if l == nil {
		return Lane{Model: GradingLanes, Grading: true}
	}
	return *l
}

// RatioOf is new ÷ old, or nil when old is not positive (nothing to
// compare with).
func RatioOf(new, old float64) *float64 {
	if old <= 0 {
		return nil
	}
	r := new / old
	return &r
}

// MinRatioCompleted is the fewest jobs a baseline lane (or lane group) must
// have completed in the window for one seed's multiplier and token
// multiplier to be printed as ratios (the terminal's tables, the report's,
// the headline): under it counting noise alone moves the ratio by more than
// a factor of exp(1.96/√20) ≈ 1.55 either way (95%), and a token ratio over
// a handful of jobs compares different kinds of job (tail-001 of the default
// scenario, seed 1: 15.00x in jobs and 46536.03x in tokens over 10 baseline
// jobs of one call each). summary.json keeps every ratio; over seeds, where
// the interval carries the noise, a seed is left out only below
// NearZeroCompleted.
const MinRatioCompleted = 20

// RatioShown says whether a ratio over a baseline that completed
// oldCompleted jobs is printed (MinRatioCompleted).
func RatioShown(oldCompleted int64) bool { return oldCompleted >= MinRatioCompleted }

// RatioCells are a comparison's multiplier and token multiplier as printed,
// with unit ("x", "×"): "n/a (old N)" and "n/a" over a baseline of fewer
// than MinRatioCompleted jobs.
func RatioCells(c LaneComparison, unit string) (mult, tokens string) {
	if !RatioShown(c.OldCompleted) {
		return fmt.Sprintf("n/a (old %d)", c.OldCompleted), "n/a"
	}
	return MultiplierText(c.Multiplier, unit), MultiplierText(c.TokenMultiplier, unit)
}

// RatioNote explains the "n/a (old N)" cells under a table.
var RatioNote = fmt.Sprintf("n/a (old N): the baseline completed N jobs in the window, fewer than %d: too few for a ratio", MinRatioCompleted)

// MultiplierText formats a ratio with its unit ("1.23x"), or "-" when there is
// none (the baseline had nothing).
func MultiplierText(r *float64, unit string) string {
	if r == nil {
		return "-"
	}
	return fmt.Sprintf("%.2f%s", *r, unit)
}
