package report

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// XY is a point of a figure.
type XY struct{ X, Y float64 }

// FrontPlot is a tune's evaluated settings on two figures (the objective
// on X, the trade-off on Y): those that broke a constraint, the feasible
// ones, the Pareto front and the recommended one.
type FrontPlot struct {
	XLabel, YLabel       string
	Infeasible, Feasible []XY
	Front                []XY
	Best                 XY
}

// PlotFront draws every evaluation (grey: infeasible, blue: feasible), the
// Pareto front (red line) and the recommendation (black) into path (.png
// or .svg).
func PlotFront(path string, fp FrontPlot) error {
	p := plot.New()
	p.Title.Text = "tune: evaluated settings and the Pareto front"
	p.X.Label.Text = fp.XLabel
	p.Y.Label.Text = fp.YLabel
	xys := func(pts []XY) plotter.XYs {
		out := make(plotter.XYs, len(pts))
		for i, q := range pts {
			out[i].X, out[i].Y = q.X, q.Y
		}
		return out
	}
	for _, s := range []struct {
		pts   []XY
		c     color.Color
		label string
	}{{fp.Infeasible, color.Gray{160}, "breaks a constraint"}, {fp.Feasible, color.RGBA{40, 90, 200, 255}, "feasible"}, {[]XY{fp.Best}, color.Black, "recommended"}} {
		if len(s.pts) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(xys(s.pts))
		if err != nil {
			return err
		}
		sc.Color = s.c
		p.Add(sc)
		p.Legend.Add(s.label, sc)
	}
	if len(fp.Front) > 0 {
		l, err := plotter.NewLine(xys(fp.Front))
		if err != nil {
			return err
		}
		l.Color = color.RGBA{200, 40, 40, 255}
		p.Add(l)
		p.Legend.Add("Pareto front", l)
	}
	return p.Save(6*vg.Inch, 4*vg.Inch, path)
}
