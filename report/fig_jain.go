package report

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"github.com/evalsched/lab/results"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// jainFigure: Jain's index over backlogged projects per fairness window,
// per run.
func jainFigure(o *input) (figSpec, error) {
	const name = "fairness-jain"
	title := "Fairness: Jain's index over backlogged projects, per window"
	s := o.Summary
	end := runEnd(o)
	scale, unit := timeUnit(end)
	p := newPlot("", "time ("+unit+")", "Jain's index (1 = equal shares)")
	newGrid(p, true, true)
	var legend []legendEntry
	var caps []string
	points := 0
	for i, r := range s.Runs {
		n, err := addJain(p, r, policyColor(i), scale)
		if err != nil {
			return figSpec{}, err
		}
		points += n
		legend = append(legend, legendEntry{roleName(s, i), lineThumb(policyColor(i), vg.Points(3), false)})
		caps = append(caps, fmt.Sprintf("%s mean %.2f", r.Policy, r.Fairness.JainMean))
	}
	if points == 0 {
		return placeholder(name, "Jain's index over time", "no fairness window had two or more backlogged projects"), nil
	}
	timeAxis(&p.X, unit, end)
	p.Y.Min, p.Y.Max = 0, 1.02
	caption := "Jain's fairness index of the jobs admitted per project in each window, over the projects that had jobs waiting " +
		"through the whole window (windows with fewer than two such projects are left out). 1 means every backlogged project got " +
		"the same number of admissions; 1/n means one took everything. Look for the new policy staying well above the old one. " +
		strings.Join(caps, ", ") + "."
	return figSpec{name: name, title: title, caption: caption, w: 10 * vg.Inch, h: 4 * vg.Inch,
		draw: figureWithLegend(title, [][]*plot.Plot{{p}}, legend)}, nil
}

// addJain draws a run's Jain's index per window with two or more backlogged
// projects, as points joined across consecutive windows only (a gap is a
// window left out), and returns the number of points.
func addJain(p *plot.Plot, r results.Run, c color.Color, scale float64) (int, error) {
	var xys, seg plotter.XYs
	prevEnd := math.NaN()
	for _, w := range r.Fairness.Windows {
		if w.Backlogged < 2 {
			continue
		}
		pt := plotter.XY{X: (w.Start + w.End) / 2 / scale, Y: w.Jain}
		if len(seg) > 0 && w.Start != prevEnd {
			if err := addLine(p, seg, c, vg.Points(1.6), false); err != nil {
				return 0, err
			}
			seg = nil
		}
		seg = append(seg, pt)
		xys = append(xys, pt)
		prevEnd = w.End
	}
	if err := addLine(p, seg, c, vg.Points(1.6), false); err != nil {
		return 0, err
	}
	if len(xys) == 0 {
		return 0, nil
	}
	sc, err := plotter.NewScatter(xys)
	if err != nil {
		return 0, err
	}
	sc.Color = c
	sc.Shape = draw.CircleGlyph{}
	sc.Radius = vg.Points(2.5)
	p.Add(sc)
	return len(xys), nil
}
