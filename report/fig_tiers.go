package report

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/evalsched/lab/results"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// tierFigure: the share of admissions per tier in each fairness window, one
// panel per run.
func tierFigure(o *input) (figSpec, error) {
	const name = "tier-shares"
	s := o.Summary
	title := "Fairness: share of admissions per tier, per " + windowLength(s) + " window"
	tiers, nwin := admittedTiers(s)
	if len(tiers) == 0 {
		return placeholder(name, "Tier shares over time", fmt.Sprintf("no fairness window with admissions (%d windows)", nwin)), nil
	}
	end := runEnd(o)
	scale, unit := timeUnit(end)
	var row []*plot.Plot
	var caps []string
	for i, r := range s.Runs {
		p := newPlot(roleName(s, i), "time ("+unit+")", "share of jobs admitted")
		newGrid(p, true, true)
		for k, t := range tiers {
			if err := addLine(p, tierShares(r, t, scale), tierColors[k%len(tierColors)], vg.Points(1.6), false); err != nil {
				return figSpec{}, err
			}
		}
		timeAxis(&p.X, unit, end)
		p.Y.Min, p.Y.Max = 0, 1
		row = append(row, p)
		caps = append(caps, fmt.Sprintf("%s overall %s (the tier rule, the share of the slots left to a tier that it took: %s)",
			r.Policy, FormatTierShares(r.Fairness.TierShares), FormatTierRule(r.Fairness.TierRule)))
	}
	var legend []legendEntry
	for k, t := range tiers {
		label := "tier " + t
		if k == 0 {
			label += " (highest)"
		}
		legend = append(legend, legendEntry{label, lineThumb(tierColors[k%len(tierColors)], vg.Points(3), false)})
	}
	caption := "Share of the jobs admitted in each fairness window that belong to each tier (the window's midpoint on the x axis), " +
		"one panel per policy; tier 1 is the highest. Over the measurement window: " + strings.Join(caps, "; ") + ". " + tierReading(s, tiers)
	return figSpec{name: name, title: title, caption: caption, w: 10 * vg.Inch, h: 4.2 * vg.Inch,
		draw: figureWithLegend(title, [][]*plot.Plot{row}, legend)}, nil
}

// admittedTiers are the tiers with admissions in any fairness window, in
// numeric order, and the number of windows.
func admittedTiers(s results.Summary) (tiers []string, windows int) {
	set := map[string]bool{}
	for _, r := range s.Runs {
		for _, w := range r.Fairness.Windows {
			windows++
			for t := range w.TierAdmitted {
				set[t] = true
			}
		}
	}
	for t := range set {
		tiers = append(tiers, t)
	}
	sort.Slice(tiers, func(i, j int) bool {
		if len(tiers[i]) != len(tiers[j]) {
			return len(tiers[i]) < len(tiers[j])
		}
		return tiers[i] < tiers[j]
	})
	return tiers, windows
}

// tierShares is tier t's share of a run's admissions per fairness window
// with any, at the window's midpoint.
func tierShares(r results.Run, t string, scale float64) plotter.XYs {
	var xys plotter.XYs
	for _, w := range r.Fairness.Windows {
		total := int64(0)
		for _, n := range w.TierAdmitted {
			total += n
		}
		if total == 0 {
			continue
		}
		xys = append(xys, plotter.XY{X: (w.Start + w.End) / 2 / scale, Y: float64(w.TierAdmitted[t]) / float64(total)})
	}
	return xys
}

// windowLength is the typical length of the fairness windows, e.g. "10-minute".
func windowLength(s results.Summary) string {
	var ls []float64
	for _, r := range s.Runs {
		for _, w := range r.Fairness.Windows {
			if d := w.End - w.Start; d > 0 {
				ls = append(ls, d)
			}
		}
	}
	if len(ls) == 0 {
		return "fairness"
	}
	sort.Float64s(ls)
	d := ls[len(ls)/2]
	switch {
	case d >= 3600 && math.Mod(d, 3600) == 0:
		return fmt.Sprintf("%.0f-hour", d/3600)
	case d >= 60 && math.Mod(d, 60) == 0:
		return fmt.Sprintf("%.0f-minute", d/60)
	}
	return fmt.Sprintf("%.0f-second", d)
}

// tierReading says how the highest and lowest tiers' shares moved from the
// first run to the second, as the data has it.
func tierReading(s results.Summary, tiers []string) string {
	if len(s.Runs) < 2 || len(tiers) < 2 {
		return ""
	}
	old, new := s.Runs[0], s.Runs[1]
	move := func(t string) string {
		o, n := old.Fairness.TierShares[t], new.Fairness.TierShares[t]
		verb := "kept"
		switch {
		case math.Round(100*n) > math.Round(100*o):
			verb = "rose from"
		case math.Round(100*n) < math.Round(100*o):
			verb = "fell from"
		}
		if verb == "kept" {
			return fmt.Sprintf("tier %s kept %s", t, pct(n))
		}
		return fmt.Sprintf("tier %s %s %s to %s", t, verb, pct(o), pct(n))
	}
	hi, lo := tiers[0], tiers[len(tiers)-1]
	r := fmt.Sprintf("From %s to %s the highest tier's share: %s; the lowest: %s.", old.Policy, new.Policy, move(hi), move(lo))
	if new.Fairness.TierShares[hi] < old.Fairness.TierShares[hi] {
		r += " The higher tier did not get a larger share under " + new.Policy + "."
	}
	return r
}
