package report

import (
	"fmt"
	"image/color"
	"slices"
	"strings"

	"github.com/evalsched/lab/results"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// alertSpan is one quota-alert episode of one run, drawn on a model's
// timeline.
type alertSpan struct {
	pol        string
	color      int     // policyColor index: the run's
	start, end float64 // seconds of virtual time
	key, dim   string
	peak       float64
}

// alertSpans are the alert episodes of every run that concern model: those
// whose key bills model's evaluation calls, or every episode of a summary
// that does not name the models (written before it did).
func alertSpans(s results.Summary, model string) []alertSpan {
	var out []alertSpan
	for i, r := range s.Runs {
		for _, e := range r.Alerts {
			if len(e.Models) > 0 && !slices.Contains(e.Models, model) {
				continue
			}
			out = append(out, alertSpan{pol: r.Policy, color: i, start: e.Start, end: e.End, key: e.Key, dim: e.Dimension, peak: e.PeakShare})
		}
	}
	return out
}

// spanPlotter shades each alert span over the panel's full height in its
// run's colour (translucent, so the lines stay readable) with a solid strip
// along the top edge: unlike the data lines and the dotted event marks.
type spanPlotter struct {
	spans []alertSpan
	scale float64
}

const spanStrip = 4 // points

func spanFill(ci int) color.Color {
	r, g, b, _ := policyColor(ci).RGBA()
	return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 0x38}
}

// Plot implements plot.Plotter. With the spans of more than two runs the
// full-height shading would stack into an opaque background, so then only
// the strips are drawn, one row per run from the top edge down.
func (sp *spanPlotter) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	var runs []int
	for _, s := range sp.spans {
		if !slices.Contains(runs, s.color) {
			runs = append(runs, s.color)
		}
	}
	shade := len(runs) <= 2
	for _, s := range sp.spans {
		x0, x1 := max(s.start/sp.scale, p.X.Min), min(s.end/sp.scale, p.X.Max)
		if x1 <= x0 {
			continue
		}
		r := vg.Rectangle{Min: vg.Point{X: trX(x0), Y: c.Min.Y}, Max: vg.Point{X: trX(x1), Y: c.Max.Y}}
		if shade {
			c.SetColor(spanFill(s.color))
			c.Fill(r.Path())
		}
		// one strip per run, stacked down from the top edge, so that
		// overlapping episodes of different runs stay apart
		row := slices.Index(runs, s.color)
		r.Max.Y = c.Max.Y - vg.Points(float64(row)*(spanStrip+1))
		r.Min.Y = r.Max.Y - vg.Points(spanStrip)
		c.SetColor(policyColor(s.color))
		c.Fill(r.Path())
	}
}

// spanThumb is the legend thumbnail of an alert span.
type spanThumb struct{}

func (spanThumb) Thumbnail(c *draw.Canvas) {
	r := vg.Rectangle{Min: c.Min, Max: c.Max}
	c.SetColor(spanFill(0))
	c.Fill(r.Path())
	r.Min.Y = c.Max.Y - vg.Points(2)
	c.SetColor(grey)
	c.Fill(r.Path())
}

// alertCaption describes the spans drawn ("" when there is none).
func alertCaption(spans []alertSpan) string {
	if len(spans) == 0 {
		return ""
	}
	var parts []string
	for _, s := range spans {
		parts = append(parts, fmt.Sprintf("%s: %s %s %s–%s (peak %s)", s.pol, s.key, s.dim,
			formatClock(s.start), formatClock(s.end), pct(s.peak)))
	}
	return " Shaded spans with a solid strip on top (with more than two runs, the strips alone, a row per run), in the run's colour: quota alert episodes " +
		"(evaluation traffic above the alert's share of a quota window production also bills to; runs[].alerts): " +
		strings.Join(parts, "; ") + "."
}
