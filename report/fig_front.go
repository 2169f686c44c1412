package report

import (
	"fmt"
	"image/color"
	"path/filepath"
	"strings"

	"github.com/evalsched/lab/results"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
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
// or .svg), the legend below the plot.
func PlotFront(path string, fp FrontPlot) error {
	spec, err := frontSpec(fp)
	if err != nil {
		return err
	}
	png, svg, err := render(spec)
	if err != nil {
		return err
	}
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".png":
		return results.WriteFileAtomic(path, png)
	case ".svg":
		return results.WriteFileAtomic(path, svg)
	default:
		return fmt.Errorf("%s: a front is written as .png or .svg, not %q", path, ext)
	}
}

// frontSpec is the tune's front as a figure.
func frontSpec(fp FrontPlot) (figSpec, error) {
	title := "tune: evaluated settings and the Pareto front"
	p := newPlot("", fp.XLabel, fp.YLabel)
	newGrid(p, true, true)
	xys := func(pts []XY) plotter.XYs {
		out := make(plotter.XYs, len(pts))
		for i, q := range pts {
			out[i].X, out[i].Y = fin(q.X), fin(q.Y)
		}
		return out
	}
	var legend []legendEntry
	if len(fp.Front) > 0 {
		l, err := plotter.NewLine(xys(fp.Front))
		if err != nil {
			return figSpec{}, err
		}
		l.Color, l.Width = color.RGBA{200, 40, 40, 255}, vg.Points(1.2)
		p.Add(l)
		legend = append(legend, legendEntry{"Pareto front", l})
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
			return figSpec{}, err
		}
		sc.Color = s.c
		sc.GlyphStyle.Shape = draw.CircleGlyph{}
		p.Add(sc)
		legend = append(legend, legendEntry{s.label, sc})
	}
	w := 6 * vg.Inch
	return figSpec{name: "front", title: title, w: w, h: 4*vg.Inch + legendHeight(w, legend),
		draw: figureWithLegend(title, [][]*plot.Plot{{p}}, legend)}, nil
}
