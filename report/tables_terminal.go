package report

import (
	"cmp"
	"fmt"
	"io"
	"slices"

	"github.com/evalsched/lab/results"
)

// WriteCompareTable prints the comparison: the top lanes and the group
// rows. A lane whose baseline completed fewer than MinRatioCompleted jobs
// in the window shows "n/a (old N)" instead of its ratios, with a note
// under the table. Wider than TerminalColumns, the columns that do not fit
// follow in a second block.
func WriteCompareTable(w io.Writer, old, new results.Run, rows []results.LaneComparison, top int) error {
	tw := newFitWriter(w)
	fmt.Fprintf(tw, "model\told jobs/h\tnew jobs/h\tmultiplier\ttokens x\told p90 s\tnew p90 s\told p90 wait share\tnew p90 wait share\t\n")
	shown := rows
	if top > 0 && len(rows) > top {
		shown = rows[:top]
	}
	na := false
	line := func(c results.LaneComparison) {
		mult, tokens := results.RatioCells(c, "x")
		na = na || !results.RatioShown(c.OldCompleted)
		fmt.Fprintf(tw, "%s\t%.1f\t%.1f\t%s\t%s\t%.0f\t%.0f\t%.0f%%\t%.0f%%\t\n", c.Model, c.OldPerHour, c.NewPerHour,
			mult, tokens, c.OldP90, c.NewP90, 100*c.OldWaitShare, 100*c.NewWaitShare)
	}
	for _, c := range shown {
		line(c)
	}
	if rest := len(rows) - len(shown); rest > 0 {
		fmt.Fprintf(tw, "(%s)\t\n", plural(rest, "more lane", "more lanes"))
	}
	for _, g := range results.GroupComparisons(old, new) {
		line(g)
	}
	if na {
		fmt.Fprintln(tw, results.RatioNote+".")
	}
	return tw.Flush()
}

// WriteRunTable prints the per-lane table of one run: the top lanes by
// throughput (all when top <= 0) and the total.
func WriteRunTable(out io.Writer, run results.Run, top int) error {
	tw := newFitWriter(out)
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
		fmt.Fprintf(tw, "(%s)\t\n", plural(rest, "more lane", "more lanes"))
	}
	row(run.Total)
	if run.Grading != nil {
		row(*run.Grading)
	}
	return tw.Flush()
}

// WriteMultiplierTable prints the multiplier over seeds for the top lanes.
func WriteMultiplierTable(w io.Writer, stats []results.MultiplierStat, top int) error {
	tw := newFitWriter(w)
	fmt.Fprintf(tw, "model\tseeds\tmean\t95%% CI\ttokens mean\ttokens 95%% CI\tnear-zero\t\n")
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
			fmt.Fprintf(tw, "(%s)\t\n", plural(len(lanes)-top, "more lane", "more lanes"))
			break
		}
		row(s)
	}
	for _, s := range groups {
		row(s)
	}
	return tw.Flush()
}
