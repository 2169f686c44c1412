package report

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/evalsched/lab/results"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// rejectionFigures: 429s per lane and, from series.csv's optional columns,
// 429s and quota usage over time; only when a run has any 429.
func rejectionFigures(o *input) ([]figSpec, error) {
	const name = "rejections-429"
	s := o.Summary
	groups, total := rejectionsByLane(s)
	if total == 0 && len(groups) == 0 {
		return nil, nil
	}
	var figs []figSpec
	if len(groups) > 0 {
		var series []string
		for i := range s.Runs {
			series = append(series, roleName(s, i))
		}
		title := "Rate-limit rejections (429) per lane"
		p, h, legend, err := groupedBars(title, "tries rejected with 429 in the measurement window", series, topAndOther(groups, FigureTopLanes, nil))
		if err != nil {
			return nil, err
		}
		figs = append(figs, barFigure(name, title, rejectionsCaption(s, groups), h, p, legend))
	}
	for _, c := range []seriesColumn{rejectionsOverTime, quotaUseOverTime} {
		f, ok, err := c.figure(o)
		if err != nil {
			return nil, err
		}
		if ok {
			figs = append(figs, f)
		}
	}
	if len(figs) == 0 {
		figs = append(figs, placeholder(name, "Rate-limit rejections (429)",
			fmt.Sprintf("the runs had %d rejections in total but no lane lists any", total)))
	}
	return figs, nil
}

// rejectionsByLane is a bar group per lane with any 429 (a value per run),
// most 429s first, and the runs' total 429s.
func rejectionsByLane(s results.Summary) ([]barGroup, int64) {
	total := int64(0)
	byModel := map[string][]float64{}
	for i, r := range s.Runs {
		total += r.Total.Rejected429
		for _, l := range r.Lanes {
			if l.Rejected429 > 0 {
				v := byModel[l.Model]
				if v == nil {
					v = make([]float64, len(s.Runs))
				}
				v[i] += float64(l.Rejected429)
				byModel[l.Model] = v
			}
		}
	}
	var groups []barGroup
	sums := map[string]float64{}
	for m, v := range byModel {
		for _, x := range v {
			sums[m] += x
		}
		groups = append(groups, barGroup{name: m, values: v})
	}
	sort.Slice(groups, func(i, j int) bool {
		if a, b := sums[groups[i].name], sums[groups[j].name]; a != b {
			return a > b
		}
		return groups[i].name < groups[j].name
	})
	return groups, total
}

// seriesColumn is a figure of one optional series.csv column over time, per
// policy: the models of a sample are combined with combine, the values
// multiplied by scale; the legend goes below the plot, in as many rows as
// the runs need, never over the lines.
type seriesColumn struct {
	column                       string
	combine                      func(acc, v float64) float64
	scale                        float64
	name, title, ylabel, caption string
}

// rejectionsOverTime plots the rejected_429 column, summed over models.
var rejectionsOverTime = seriesColumn{column: "rejected_429", combine: func(acc, v float64) float64 { return acc + v }, scale: 1,
	name: "rejections-429-over-time", title: "429s over time (all models)", ylabel: "429s per sample interval",
	caption: "Tries rejected with 429 per series interval, summed over all models, " +
		"from series.csv's rejected_429 column. Look for bursts of 429s after bursts of batches or when the scheduler raises a limit."}

// quotaUseOverTime plots the quota_use column: at each sample, the fullest
// quota window of any organisation, as a percentage.
var quotaUseOverTime = seriesColumn{column: "quota_use", combine: math.Max, scale: 100,
	name: "quota-use-over-time", title: "Rate-limit usage over time (fullest quota window)", ylabel: "% of the limit in use",
	caption: "At each sample, the fullest rolling quota window (rpm, tpm, rpd or tpd) of any organisation a busy model belongs to, " +
		"as a percentage of its limit, from series.csv's quota_use column. Near 100% the provider answers 429: " +
		"look for the policy that keeps usage pinned at the limit, and for how long."}

// smallMultiplesAbove is the number of runs above which a figure of one
// line per run is drawn as small multiples: a panel per run on shared
// axes, the baseline faint in each, since more lines on one plot tangle.
const smallMultiplesAbove = 3

// runLine is one run's line of a figure of one line per run.
type runLine struct {
	label string
	color color.Color
	xys   plotter.XYs
}

// figure draws the column; ok is false when the column is missing or all
// zero.
func (c seriesColumn) figure(o *input) (f figSpec, ok bool, err error) {
	col := extraColumn(o, c.column)
	if col < 0 {
		return figSpec{}, false, nil
	}
	tscale, unit := timeUnit(runEnd(o))
	roles := newPolicyRoles(o.Summary)
	any := false
	var lines []runLine
	for k, pol := range policies(o) {
		acc := map[float64]float64{}
		for _, r := range o.Series {
			if r.Policy == pol && col < len(r.Extra) {
				v := c.scale * fin(r.Extra[col])
				acc[r.T] = c.combine(acc[r.T], v)
				any = any || v != 0
			}
		}
		xys := sortedXY(acc, tscale)
		if len(xys) == 0 {
			continue
		}
		lines = append(lines, runLine{label: roles.label(pol), color: policyColor(roles.colorIndex(pol, k)), xys: xys})
	}
	if !any {
		return figSpec{}, false, nil
	}
	if len(lines) > smallMultiplesAbove {
		return c.smallMultiples(o, lines, unit)
	}
	p := newPlot("", "time ("+unit+")", c.ylabel)
	newGrid(p, true, true)
	var legend []legendEntry
	for _, rl := range lines {
		if err := addLine(p, rl.xys, rl.color, vg.Points(1.2), false); err != nil {
			return figSpec{}, false, err
		}
		legend = append(legend, legendEntry{rl.label, lineThumb(rl.color, vg.Points(3), false)})
	}
	timeAxis(&p.X, unit, runEnd(o))
	w := 10 * vg.Inch
	return figSpec{name: c.name, title: c.title, caption: c.caption, w: w, h: 4*vg.Inch + legendHeight(w, legend),
		draw: figureWithLegend(c.title, [][]*plot.Plot{{p}}, legend)}, true, nil
}

// smallMultiples draws lines as a panel per run, three to a row (two for
// four runs), on the same axes (the y axis named in the title: a label per
// panel would outgrow the panels); the first line (the baseline) is drawn
// faint in grey under every other run's.
func (c seriesColumn) smallMultiples(o *input, lines []runLine, unit string) (figSpec, bool, error) {
	cols := 3
	if len(lines) == 4 {
		cols = 2
	}
	rows := (len(lines) + cols - 1) / cols
	top := 1.0
	for _, rl := range lines {
		for _, xy := range rl.xys {
			top = max(top, xy.Y)
		}
	}
	grid := make([][]*plot.Plot, rows)
	for i := range grid {
		grid[i] = make([]*plot.Plot, cols)
	}
	for i, rl := range lines {
		p := newPlot(rl.label, "", "")
		p.Title.TextStyle.Font.Size = 10
		p.Title.Padding = vg.Points(3)
		newGrid(p, true, true)
		if i > 0 {
			if err := addLine(p, slices.Clone(lines[0].xys), faintBaseline, vg.Points(0.9), false); err != nil {
				return figSpec{}, false, err
			}
		}
		if err := addLine(p, rl.xys, rl.color, vg.Points(1.1), false); err != nil {
			return figSpec{}, false, err
		}
		timeAxis(&p.X, unit, runEnd(o))
		p.X.Label.Text = ""
		p.Y.Min, p.Y.Max = 0, top*1.05
		grid[i/cols][i%cols] = p
	}
	for k := range cols { // the time axis named under the lowest panel of each column
		for r := rows - 1; r >= 0; r-- {
			if grid[r][k] != nil {
				grid[r][k].X.Label.Text = "time (" + unit + ")"
				break
			}
		}
	}
	base := strings.TrimSuffix(lines[0].label, " (baseline)")
	legend := []legendEntry{
		{"the panel's run, in its colour", lineThumb(rgb(0x33, 0x33, 0x33), vg.Points(2), false)},
		{"the baseline, " + base + ", faint in the other panels", lineThumb(faintBaseline, vg.Points(2), false)},
	}
	w := 10 * vg.Inch
	caption := c.caption + fmt.Sprintf(" With %d runs (more than %d), a panel per run on the same axes, the baseline (%s) faint in grey in the others.",
		len(lines), smallMultiplesAbove, base)
	return figSpec{name: c.name, title: c.title, caption: caption, w: w, h: vg.Length(rows)*1.9*vg.Inch + vg.Points(30) + legendHeight(w, legend),
		draw: figureWithLegend(c.title+" (y: "+c.ylabel+")", grid, legend)}, true, nil
}

// faintBaseline is the colour of the baseline drawn under another run's
// line in a small multiple.
var faintBaseline = rgb(0xC4, 0xC4, 0xC4)

// rejectionsCaption says what the 429 bars show: the lanes with the most
// 429s and how the policies compare on them.
func rejectionsCaption(s results.Summary, groups []barGroup) string {
	caption := "Tries the providers rejected with 429 (a quota was full) per lane and policy, in the measurement window; " +
		"a rejected try backs off and retries, holding its job's container. "
	var parts []string
	for _, g := range groups[:min(3, len(groups))] {
		var vals []string
		for i, v := range g.values {
			vals = append(vals, fmt.Sprintf("%s under %s", count(int64(v)), roleName(s, i)))
		}
		parts = append(parts, g.name+": "+strings.Join(vals, ", "))
	}
	if len(parts) > 0 {
		caption += "Most 429s: " + strings.Join(parts, "; ") + "."
	}
	return caption
}

// extraColumn is the index of series.csv's optional column name in
// SeriesRecord.Extra, or -1.
func extraColumn(o *input, name string) int {
	for i, h := range o.SeriesExtra {
		if h == name {
			return i
		}
	}
	return -1
}
