package report

import (
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// barGroup is one category of a grouped horizontal bar chart: a value per
// series and a note printed right of the group.
type barGroup struct {
	name   string
	values []float64
	note   string
}

// topAndOther keeps the first top groups (at least one) and sums the values
// of the rest into one "other (K lanes)" group, whose note is note(sums)
// (none if note is nil).
func topAndOther(groups []barGroup, top int, note func(sums []float64) string) []barGroup {
	top = max(top, 1)
	if len(groups) <= top {
		return groups
	}
	rest := groups[top:]
	width := 0
	for _, g := range rest {
		width = max(width, len(g.values))
	}
	other := barGroup{name: "other (" + plural(len(rest), "lane", "lanes") + ")", values: make([]float64, width)}
	for _, g := range rest {
		for k, v := range g.values {
			other.values[k] += fin(v)
		}
	}
	if note != nil {
		other.note = note(other.values)
	}
	return append(groups[:top:top], other)
}

// groupedBars draws horizontal grouped bars, the first group at the top,
// each group's label level with its bars, and returns the plot, the height
// it needs and a legend entry per series (drawn below the plot, so the axis
// only has to fit the bars and their notes).
func groupedBars(title, xlabel string, series []string, groups []barGroup) (*plot.Plot, vg.Length, []legendEntry, error) {
	n := len(groups)
	h := vg.Length(max(3.2, 0.22*float64(n*max(len(series), 1))+0.18*float64(n)+1.5)) * vg.Inch
	p := newPlot(title, xlabel, "")
	newGrid(p, true, false)
	names := make([]string, n)
	for i, g := range groups {
		names[n-1-i] = g.name
	}
	p.NominalY(names...)
	p.Y.Tick.Label.Font = font.From(sansFont, 10)
	maxV, legend, err := addBars(p, h, series, groups)
	if err != nil {
		return nil, 0, nil, err
	}
	if err := addBarNotes(p, groups); err != nil {
		return nil, 0, nil, err
	}
	if maxV <= 0 {
		maxV = 1
	}
	// Each category spans one unit centred on its label; notes need ~12%.
	p.Y.Min, p.Y.Max = -0.5, float64(n)-0.5
	p.X.Min, p.X.Max = 0, maxV*1.12
	return p, h, legend, nil
}

// barAreaHeight is the height of the data area of a groupedBars figure of
// height h (less title, axis and legend strip).
func barAreaHeight(h vg.Length) vg.Length { return h - 1.6*vg.Inch }

// addBars adds one bar chart per series to p, the first series on top
// within a group, and returns the longest bar and a legend entry per series.
func addBars(p *plot.Plot, h vg.Length, series []string, groups []barGroup) (float64, []legendEntry, error) {
	n := len(groups)
	bw := barAreaHeight(h) / vg.Length(n) * 0.8 / vg.Length(max(len(series), 1))
	maxV := 0.0
	var legend []legendEntry
	for k, s := range series {
		vals := make(plotter.Values, n)
		for i, g := range groups {
			if k < len(g.values) {
				vals[n-1-i] = max(0, fin(g.values[k]))
				maxV = max(maxV, vals[n-1-i])
			}
		}
		b, err := plotter.NewBarChart(vals, bw)
		if err != nil {
			return 0, nil, err
		}
		b.Horizontal = true
		b.Color = policyColor(k)
		b.LineStyle.Width = 0
		b.Offset = (vg.Length(len(series)-1)/2 - vg.Length(k)) * bw
		p.Add(b)
		legend = append(legend, legendEntry{s, b})
	}
	return maxV, legend, nil
}

// addBarNotes prints each group's note right of its longest bar.
func addBarNotes(p *plot.Plot, groups []barGroup) error {
	n := len(groups)
	var xys plotter.XYs
	var notes []string
	for i, g := range groups {
		if g.note == "" {
			continue
		}
		top := 0.0
		for _, v := range g.values {
			top = max(top, fin(v))
		}
		xys = append(xys, plotter.XY{X: top, Y: float64(n - 1 - i)})
		notes = append(notes, g.note)
	}
	if len(xys) == 0 {
		return nil
	}
	l, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: notes})
	if err != nil {
		return err
	}
	for i := range l.TextStyle {
		st := textStyle(10)
		st.Font = font.From(boldFont, 10)
		st.YAlign = draw.YCenter
		l.TextStyle[i] = st
	}
	l.Offset = vg.Point{X: vg.Points(4)}
	p.Add(l)
	return nil
}
