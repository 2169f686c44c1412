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

// jainFigure: Jain's index per lane over the projects backlogged on it,
// per fairness window (lanes weighted by their admissions in it), per run.
func jainFigure(o *input) (figSpec, error) {
	const name = "fairness-jain"
	title := "Fairness: Jain's index per lane over its backlogged projects, per window"
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
		f := r.Fairness
		caps = append(caps, fmt.Sprintf("%s %s by jobs, %s by tokens over %d lane-windows (cross-lane %s)",
			r.Policy, results.JainText(f.JainPerLane), results.JainText(f.JainPerLaneTokens), f.LaneWindows, results.JainText(f.JainCrossLane)))
	}
	if points == 0 {
		return placeholder(name, "Jain's index over time", "no lane had two or more projects backlogged through a fairness window"), nil
	}
	timeAxis(&p.X, unit, end)
	p.Y.Min, p.Y.Max = 0, 1.02
	caption := "Jain's fairness index of the jobs admitted per project on one lane in each window, over the projects that had jobs " +
		"waiting for that model through the whole window, averaged over the lanes with at least two such projects, weighted by each lane's " +
		"admissions in the window (windows with no such lane are left out). 1 means every project backlogged on a lane got the same number " +
		"of admissions; 1/n means one took everything. Round robin happens within a lane, so this is what the scheduler's rule promises; " +
		"look for the new policy near 1 and above the old one. Over the run: " + strings.Join(caps, "; ") + "."
	return figSpec{name: name, title: title, caption: caption, w: 10 * vg.Inch, h: 4 * vg.Inch,
		draw: figureWithLegend(title, [][]*plot.Plot{{p}}, legend)}, nil
}

// addJain draws a run's per-lane Jain's index per window with a lane of two
// or more backlogged projects, as points joined across consecutive windows
// only (a gap is a window left out), and returns the number of points.
func addJain(p *plot.Plot, r results.Run, c color.Color, scale float64) (int, error) {
	var xys, seg plotter.XYs
	prevEnd := math.NaN()
	for _, w := range r.Fairness.Windows {
		var a, j float64
		for _, l := range w.Lanes {
			a += float64(l.Admitted)
			j += float64(l.Admitted) * l.Jain
		}
		if a == 0 {
			continue
		}
		pt := plotter.XY{X: (w.Start + w.End) / 2 / scale, Y: j / a}
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
