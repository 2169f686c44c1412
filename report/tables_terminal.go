package report

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"github.com/evalsched/lab/results"
)

// WriteCompareTable prints the comparison: the top lanes and the total. A
// lane whose baseline completed fewer than NearZeroCompleted jobs in the
// window shows that count instead of a ratio.
func WriteCompareTable(w io.Writer, old, new results.Run, rows []results.LaneComparison, top int) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "model\told jobs/h\tnew jobs/h\tmultiplier\ttokens x\told p90 s\tnew p90 s\told p90 wait\tnew p90 wait\t\n")
	shown := rows
	if top > 0 && len(rows) > top {
		shown = rows[:top]
	}
	line := func(c results.LaneComparison) {
		mult, tokens := results.MultiplierText(c.Multiplier, "x"), results.MultiplierText(c.TokenMultiplier, "x")
		if c.OldCompleted < results.NearZeroCompleted {
			// A ratio over a near-empty baseline is counting noise.
			mult, tokens = fmt.Sprintf("old %d jobs", c.OldCompleted), "-"
		}
		fmt.Fprintf(tw, "%s\t%.1f\t%.1f\t%s\t%s\t%.0f\t%.0f\t%.0f%%\t%.0f%%\t\n", c.Model, c.OldPerHour, c.NewPerHour,
			mult, tokens, c.OldP90, c.NewP90, 100*c.OldWaitShare, 100*c.NewWaitShare)
	}
	for _, c := range shown {
		line(c)
	}
	if rest := len(rows) - len(shown); rest > 0 {
		fmt.Fprintf(tw, "(%d more lanes)\t\t\t\t\t\t\t\t\t\n", rest)
	}
	for _, g := range results.GroupComparisons(old, new) {
		line(g)
	}
	return tw.Flush()
}

// WriteRunTable prints the per-lane table of one run: the top lanes by
// throughput (all when top <= 0) and the total.
func WriteRunTable(out io.Writer, run results.Run, top int) error {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "model\tcompleted\tjobs/h\tp50 s\tp90 s\twait share\tp90 wait share\tgateway-only ctr-h\t429s\t\n")
	lanes := append([]results.Lane(nil), run.Lanes...)
	slices.SortStableFunc(lanes, func(a, b results.Lane) int { return cmp.Compare(b.ThroughputPerHour, a.ThroughputPerHour) })
	shown := lanes
	if top > 0 && len(lanes) > top {
		shown = lanes[:top]
	}
	row := func(l results.Lane) {
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.0f\t%.0f\t%.0f%%\t%.0f%%\t%.1f\t%d\t\n", l.Model, l.Completed, l.ThroughputPerHour,
			l.JobTime.Total.P50, l.JobTime.Total.P90, 100*l.WaitShare, 100*l.P90WaitShare, l.GatewayWaitContainerSeconds/3600, l.Rejected429)
	}
	for _, l := range shown {
		row(l)
	}
	if rest := len(lanes) - len(shown); rest > 0 {
		fmt.Fprintf(tw, "(%d more lanes)\t\t\t\t\t\t\t\t\t\n", rest)
	}
	row(run.Total)
	if run.Grading != nil {
		row(*run.Grading)
	}
	return tw.Flush()
}

// WriteMultiplierTable prints the multiplier over seeds for the top lanes.
func WriteMultiplierTable(w io.Writer, stats []results.MultiplierStat, top int) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "model\tseeds\tgeo. mean\t95%% CI\ttokens geo. mean\ttokens 95%% CI\tnear-zero seeds\t\n")
	interval := func(lo, hi string) string {
		if lo == "-" {
			return "-"
		}
		return "[" + lo + ", " + hi + "]"
	}
	row := func(s results.MultiplierStat) {
		mean, lo, hi := s.Cells("x")
		tmean, tlo, thi := s.Tokens.Cells("x")
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%d\t\n", s.Model, s.Seeds, mean, interval(lo, hi), tmean, interval(tlo, thi), s.NearZeroSeeds)
	}
	// The lanes, the busiest top; the group rows always, last.
	var lanes, groups []results.MultiplierStat
	for _, s := range stats {
		if results.IsGroupRow(s.Model) {
			groups = append(groups, s)
		} else {
			lanes = append(lanes, s)
		}
	}
	for i, s := range lanes {
		if top > 0 && i == top {
			fmt.Fprintf(tw, "(%d more lanes)\t\t\t\t\t\t\t\n", len(lanes)-top)
			break
		}
		row(s)
	}
	for _, s := range groups {
		row(s)
	}
	return tw.Flush()
}
