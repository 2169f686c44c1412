package report

import (
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

var (
	sansFont = font.Font{Typeface: "Liberation", Variant: "Sans"}
	boldFont = font.Font{Typeface: "Liberation", Variant: "Sans", Weight: 3} // golang.org/x/image/font.WeightBold

	// Okabe-Ito colours: distinguishable with the common colour-vision
	// deficiencies.
	okabeIto = []color.Color{
		rgb(0xE6, 0x9F, 0x00), // orange
		rgb(0x00, 0x72, 0xB2), // blue
		rgb(0x00, 0x9E, 0x73), // green
		rgb(0xCC, 0x79, 0xA7), // purple
		rgb(0xD5, 0x5E, 0x00), // vermillion
		rgb(0x56, 0xB4, 0xE9), // sky blue
		rgb(0xF0, 0xE4, 0x42), // yellow
		rgb(0x00, 0x00, 0x00),
	}
	grey     = rgb(0x88, 0x88, 0x88)
	eventRed = rgb(0xC0, 0x1C, 0x28)

	// runColors are the colours of runs: Okabe-Ito's eight, then six of
	// Paul Tol's muted scheme that differ from them, so that the ten
	// variants of an incident never share a colour.
	runColors = append(slices.Clone(okabeIto),
		rgb(0x33, 0x22, 0x88), // indigo
		rgb(0x88, 0x22, 0x55), // wine
		rgb(0x99, 0x99, 0x33), // olive
		rgb(0x44, 0xAA, 0x99), // teal
		rgb(0xCC, 0x66, 0x77), // rose
		rgb(0x99, 0x99, 0x99), // grey
	)
)

func rgb(r, g, b uint8) color.Color { return color.RGBA{R: r, G: g, B: b, A: 255} }

// policyColor is the colour of run i: the baseline orange, the candidate
// blue; distinct for up to 14 runs.
func policyColor(i int) color.Color { return runColors[i%len(runColors)] }

// runDashes are the dashes of run i's lines: solid for the first
// len(runColors) runs, dash-dot for the runs whose colour comes round
// again, so that no two runs look alike on a figure of lines.
func runDashes(i int) []vg.Length {
	if i < len(runColors) {
		return nil
	}
	return []vg.Length{vg.Points(7), vg.Points(2), vg.Points(1.5), vg.Points(2)}
}

// runThumb is the legend thumbnail of run i's line.
func runThumb(i int, width vg.Length) plot.Thumbnailer {
	return &plotter.Line{LineStyle: draw.LineStyle{Color: policyColor(i), Width: width, Dashes: runDashes(i)}}
}

var splitColors = []color.Color{okabeIto[4], okabeIto[6], okabeIto[3], okabeIto[1], okabeIto[2]}

var tierColors = []color.Color{okabeIto[4], okabeIto[2], okabeIto[5], okabeIto[3], okabeIto[6], okabeIto[7]}

func textStyle(size vg.Length) text.Style {
	return text.Style{Color: color.Black, Font: font.From(sansFont, size), Handler: plot.DefaultTextHandler}
}

// newPlot is a plot with sans-serif fonts of readable sizes.
func newPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = font.From(boldFont, 12)
	p.Title.Padding = vg.Points(6)
	p.X.Label.Text, p.Y.Label.Text = xlabel, ylabel
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sansFont, 11)
		a.Tick.Label.Font = font.From(sansFont, 10)
	}
	p.X.Tick.Marker, p.Y.Tick.Marker = cleanTicks{}, cleanTicks{}
	p.Legend.TextStyle.Font = font.From(sansFont, 10)
	p.Legend.Padding = vg.Points(2)
	p.Legend.ThumbnailWidth = vg.Points(22)
	return p
}

// newGrid adds light grid lines to p.
func newGrid(p *plot.Plot, vertical, horizontal bool) {
	g := plotter.NewGrid()
	g.Vertical.Color, g.Horizontal.Color = rgb(0xE4, 0xE4, 0xE4), rgb(0xE4, 0xE4, 0xE4)
	if !vertical {
		g.Vertical.Color = nil
	}
	if !horizontal {
		g.Horizontal.Color = nil
	}
	p.Add(g)
}

// cleanTicks are the library's default ticks labelled without trailing
// zeros ("500", not "500.00") and with thousands as "12k".
type cleanTicks struct{}

// Ticks implements plot.Ticker.
func (cleanTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	big := math.Max(math.Abs(lo), math.Abs(hi)) >= 1e5
	for i := range ts {
		if ts[i].Label == "" {
			continue
		}
		v := ts[i].Value
		switch {
		case big && math.Abs(v) >= 1e3:
			ts[i].Label = strconvFloat(v/1e3) + "k"
		default:
			ts[i].Label = strconvFloat(v)
		}
	}
	return ts
}

// intTicks are cleanTicks without labels between integers: for counts
// (calls, jobs), where "0.5 calls" means nothing.
type intTicks struct{}

// Ticks implements plot.Ticker.
func (intTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := cleanTicks{}.Ticks(lo, hi)
	out := ts[:0]
	for _, t := range ts {
		if t.Value == math.Trunc(t.Value) {
			out = append(out, t)
		}
	}
	return out
}

// darker is c at 60% brightness, for a second line of the same series.
func darker(c color.Color) color.Color {
	r, g, b, _ := c.RGBA()
	return color.RGBA{R: uint8(r >> 8 * 6 / 10), G: uint8(g >> 8 * 6 / 10), B: uint8(b >> 8 * 6 / 10), A: 255}
}

// lineThumb is a legend thumbnail of a line style.
func lineThumb(c color.Color, width vg.Length, dashed bool) plot.Thumbnailer {
	l := &plotter.Line{LineStyle: draw.LineStyle{Color: c, Width: width}}
	if dashed {
		l.Dashes = dashes
	}
	return l
}

var dashes = []vg.Length{vg.Points(5), vg.Points(3)}
