package report

import (
	"bytes"
	"image/color"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// TestExtremeLineDrawsAsLine: a plot drawn with extremeLine is the same
// SVG, byte for byte, as with plotter.Line (a glyph box per point), for
// lines with plateaus at their extremes, ties and near-ties, points outside
// fixed axis ranges, NaN-free random walks, and a scatter beside them.
func TestExtremeLineDrawsAsLine(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	walk := func(n int) plotter.XYs {
		xys := make(plotter.XYs, n)
		y := 0.0
		for i := range xys {
			y += r.NormFloat64()
			xys[i] = plotter.XY{X: float64(i) * 60, Y: y}
		}
		return xys
	}
	plateaus := func(n int) plotter.XYs {
		xys := make(plotter.XYs, n)
		for i := range xys {
			xys[i] = plotter.XY{X: float64(i), Y: float64([]int{0, 0, 5, 10, 10, 10, 3}[r.IntN(7)])}
		}
		return xys
	}
	nearTies := func(n int) plotter.XYs {
		xys := make(plotter.XYs, n)
		for i := range xys {
			xys[i] = plotter.XY{X: float64(i%50) + []float64{0, 1e-13, 2e-12}[r.IntN(3)], Y: 0.1 + 0.2 - []float64{0, 0.3 - 0.1 - 0.2}[r.IntN(2)]*float64(r.IntN(2))}
		}
		return xys
	}
	cases := []struct {
		name   string
		lines  []plotter.XYs
		axes   func(p *plot.Plot)
		widths []vg.Length
	}{
		{name: "walk", lines: []plotter.XYs{walk(5000)}},
		{name: "plateaus", lines: []plotter.XYs{plateaus(3000), plateaus(3000)}},
		{name: "near ties", lines: []plotter.XYs{nearTies(400)}},
		{name: "cut by the axes", lines: []plotter.XYs{walk(2000), plateaus(2000)}, axes: func(p *plot.Plot) {
			p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 100, 1500, 0, 8
		}},
		{name: "one point", lines: []plotter.XYs{{{X: 3, Y: 4}}}},
		{name: "wide lines", lines: []plotter.XYs{walk(1000), plateaus(1000)}, widths: []vg.Length{vg.Points(6), 0}},
	}
	render := func(t *testing.T, c int, extreme bool) []byte {
		p := plot.New()
		p.Title.Text = cases[c].name
		for i, xys := range cases[c].lines {
			l, err := plotter.NewLine(xys)
			if err != nil {
				t.Fatal(err)
			}
			l.Color = color.RGBA{R: uint8(60 * i), A: 255}
			if w := cases[c].widths; w != nil {
				l.Width = w[i]
			}
			if extreme {
				p.Add(extremeLine{l})
			} else {
				p.Add(l)
			}
		}
		sc, err := plotter.NewScatter(plotter.XYs{{X: 0, Y: 0}, {X: 40, Y: 2}})
		if err != nil {
			t.Fatal(err)
		}
		sc.GlyphStyle.Radius = vg.Points(4)
		p.Add(sc)
		if a := cases[c].axes; a != nil {
			a(p)
		}
		canvas := vgsvg.New(6*vg.Inch, 3*vg.Inch)
		p.Draw(draw.New(canvas))
		var buf bytes.Buffer
		if _, err := canvas.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	for c := range cases {
		t.Run(cases[c].name, func(t *testing.T) {
			want, got := render(t, c, false), render(t, c, true)
			if !bytes.Equal(want, got) {
				t.Errorf("extremeLine draws a different SVG (%d bytes against %d)", len(got), len(want))
			}
		})
	}
}
