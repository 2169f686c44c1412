package results

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
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
			Multiplier: ratioOf(n.ThroughputPerHour, o.ThroughputPerHour), TokenMultiplier: ratioOf(n.TokensPerHour, o.TokensPerHour)}
		if c.Model == "" {
			c.Model = o.Model
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

// WriteCompareTable prints the comparison: the top lanes and the total.
func WriteCompareTable(w io.Writer, old, new Run, rows []LaneComparison, top int) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "model\told jobs/h\tnew jobs/h\tmultiplier\ttokens x\told p90 s\tnew p90 s\told p90 wait\tnew p90 wait\t\n")
	shown := rows
	if top > 0 && len(rows) > top {
		shown = rows[:top]
	}
	line := func(c LaneComparison) {
		fmt.Fprintf(tw, "%s\t%.1f\t%.1f\t%s\t%s\t%.0f\t%.0f\t%.0f%%\t%.0f%%\t\n", c.Model, c.OldPerHour, c.NewPerHour,
			multiplierText(c.Multiplier, "x"), multiplierText(c.TokenMultiplier, "x"), c.OldP90, c.NewP90, 100*c.OldWaitShare, 100*c.NewWaitShare)
	}
	for _, c := range shown {
		line(c)
	}
	if rest := len(rows) - len(shown); rest > 0 {
		fmt.Fprintf(tw, "(%d more lanes)\t\t\t\t\t\t\t\t\t\n", rest)
	}
	total := Compare(Run{Lanes: []Lane{old.Total}}, Run{Lanes: []Lane{new.Total}})
	line(total[0])
	return tw.Flush()
}

// ratioOf is new ÷ old, or nil when old is not positive (nothing to
// compare with).
func ratioOf(new, old float64) *float64 {
	if old <= 0 {
		return nil
	}
	r := new / old
	return &r
}

// multiplierText formats a ratio with its unit ("1.23x"), or "-" when there is
// none (the baseline had nothing).
func multiplierText(r *float64, unit string) string {
	if r == nil {
		return "-"
	}
	return fmt.Sprintf("%.2f%s", *r, unit)
}
