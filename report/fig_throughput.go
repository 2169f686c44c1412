package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/evalsched/lab/results"
	"gonum.org/v1/plot/vg"
)

const throughputXLabel = "completed jobs per hour (measurement window)"

// throughputFigure: per-lane throughput, old vs new, top lanes and the rest.
func throughputFigure(o *input) (figSpec, error) {
	old, new := runsOf(o.Summary)
	switch {
	case new == nil:
		return placeholder("throughput", "Lane throughput", "summary.json has no run"), nil
	case old == nil:
		return singleThroughputFigure(*new)
	}
	return comparedThroughputFigure(o.Summary, *old, *new)
}

// singleThroughputFigure is the throughput figure of a single run: no
// baseline, no multipliers.
func singleThroughputFigure(run results.Run) (figSpec, error) {
	lanes := append([]results.Lane(nil), run.Lanes...)
	sort.SliceStable(lanes, func(i, j int) bool { return lanes[i].ThroughputPerHour > lanes[j].ThroughputPerHour })
	if len(lanes) == 0 {
		return placeholder("throughput", "Lane throughput", "the run has no lane with any job"), nil
	}
	perHour := func(v float64) string { return formatCount(fin(v)) + "/h" }
	groups := make([]barGroup, len(lanes))
	for i, l := range lanes {
		groups[i] = barGroup{name: l.Model, values: []float64{l.ThroughputPerHour}, note: perHour(l.ThroughputPerHour)}
	}
	groups = topAndOther(groups, FigureTopLanes, func(sums []float64) string { return perHour(sums[0]) })
	title := fmt.Sprintf("Lane throughput: %s (total %s jobs/h)", run.Policy, formatCount(fin(run.Total.ThroughputPerHour)))
	p, h, _, err := groupedBars(title, throughputXLabel, []string{run.Policy}, groups) // one series: no legend
	if err != nil {
		return figSpec{}, err
	}
	caption := fmt.Sprintf("Jobs completed per hour in the measurement window of %s, %s. "+
		"A single run has no baseline to compare with: run sim compare for multipliers.",
		run.Policy, lanesShown(len(lanes), max(FigureTopLanes, 1), ""))
	return plotFigure("throughput", title, caption, 10*vg.Inch, h, p), nil
}

// comparedThroughputFigure is the throughput figure of a comparison: old and
// new per lane with the multiplier.
func comparedThroughputFigure(s results.Summary, old, new results.Run) (figSpec, error) {
	rows := comparisonRows(s)
	if len(rows) == 0 {
		return placeholder("throughput", "Lane throughput", "no lane has any job in either run"), nil
	}
	groups := make([]barGroup, len(rows))
	for i, r := range rows {
		groups[i] = barGroup{name: r.Model, values: []float64{r.OldPerHour, r.NewPerHour}, note: formatMult(r.Multiplier)}
	}
	groups = topAndOther(groups, FigureTopLanes, func(sums []float64) string {
		if sums[0] > 0 {
			m := sums[1] / sums[0]
			return formatMult(&m)
		}
		return formatMult(nil)
	})
	tm := results.Compare(results.Run{Lanes: []results.Lane{old.Total}}, results.Run{Lanes: []results.Lane{new.Total}})[0].Multiplier
	title := fmt.Sprintf("Lane throughput, %s vs %s (total %s → %s jobs/h, %s%s)", old.Policy, new.Policy,
		formatCount(fin(old.Total.ThroughputPerHour)), formatCount(fin(new.Total.ThroughputPerHour)), formatMult(tm), totalOverSeeds(s))
	p, h, legend, err := groupedBars(title, throughputXLabel, []string{roleName(s, 0), roleName(s, 1)}, groups)
	if err != nil {
		return figSpec{}, err
	}
	return barFigure("throughput", title, comparedThroughputCaption(old, new, rows), h, p, legend), nil
}

func comparedThroughputCaption(old, new results.Run, rows []results.LaneComparison) string {
	top := max(FigureTopLanes, 1)
	var big []string
	for _, r := range rows[:min(top, len(rows))] {
		if r.Multiplier != nil && *r.Multiplier >= 1.5 {
			big = append(big, fmt.Sprintf("%s %s", r.Model, formatMult(r.Multiplier)))
		}
	}
	caption := fmt.Sprintf("Jobs completed per hour in the measurement window, per lane, under %s (old, orange) and %s (new, blue) "+
		"on the identical job stream, %s. "+
		"The number right of each pair is new ÷ old (\"new\" where the baseline completed nothing). ",
		old.Policy, new.Policy, lanesShown(len(rows), top, " (by new throughput)"))
	if len(big) > 0 {
		caption += "Look for the lanes whose fixed cap held them back — here " + strings.Join(big, ", ") + " — "
		caption += "and check that the other lanes did not lose throughput (multipliers near 1×)."
	} else {
		caption += "No top lane gained 1.5× or more: check whether the baseline's caps bind at all in this scenario."
	}
	return caption
}

// totalOverSeeds is, with several seeds, the total's multiplier over them
// beside the first seed's (", 4.7× [1.5×, 15×] over 4 seeds"), so that
// the figure's title carries the verdict's figure too; "" otherwise.
func totalOverSeeds(s results.Summary) string {
	for _, m := range s.MultiplierAcrossSeeds {
		if m.Model != results.AllLanes || m.Seeds == 0 {
			continue
		}
		if m.Low == nil || m.High == nil {
			return fmt.Sprintf(" on seed %d; %s over %d seed", s.Seed, results.TimesText(m.Mean), m.Seeds)
		}
		return fmt.Sprintf(" on seed %d; %s [%s, %s] over %d seeds", s.Seed, results.TimesText(m.Mean), results.TimesText(*m.Low), results.TimesText(*m.High), m.Seeds)
	}
	return ""
}

// lanesShown says which of n lanes a figure of the top busiest shows: "for
// all 3 lanes", "for its one lane", or "for the 10 busiest lanes<by> and
// the other 27 lanes summed".
func lanesShown(n, top int, by string) string {
	shown := min(top, n)
	switch {
	case n == 1:
		return "for its one lane"
	case shown == n:
		return fmt.Sprintf("for all %d lanes", n)
	}
	busiest := fmt.Sprintf("%d busiest lanes", shown)
	if shown == 1 {
		busiest = "busiest lane"
	}
	return fmt.Sprintf("for the %s%s and the other %s summed", busiest, by, plural(n-shown, "lane", "lanes"))
}
