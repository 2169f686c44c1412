package report

import (
	"fmt"
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
	label      string  // the run's role label
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
			out = append(out, alertSpan{pol: r.Policy, label: roleName(s, i), color: i, start: e.Start, end: e.End, key: e.Key,
				dim: e.Dimension, peak: e.PeakShare})
		}
	}
	return out
}

// alertRowHeight is the height of one run's row in the alert strip.
const alertRowHeight = 13 // points

// alertStrip is a panel of its own under a timeline's data panels: a row
// per run that had an alert episode, each episode a bar in the run's
// colour. Kept out of the data panels, the spans hide no line however
// many runs there are. Nil when there is no span.
func alertStrip(spans []alertSpan, scale float64) (*plot.Plot, vg.Length) {
	if len(spans) == 0 {
		return nil, 0
	}
	var runs []int
	labels := map[int]string{}
	for _, s := range spans {
		if !slices.Contains(runs, s.color) {
			runs = append(runs, s.color)
			labels[s.color] = s.label
		}
	}
	slices.Sort(runs)
	p := newPlot("", "", "quota alerts")
	p.Y.Label.TextStyle.Font.Size = 9
	p.Y.Min, p.Y.Max = -0.5, float64(len(runs))-0.5
	var ticks []plot.Tick
	for i, ci := range runs {
		ticks = append(ticks, plot.Tick{Value: float64(len(runs) - 1 - i), Label: labels[ci]}) // the first run on top
	}
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	p.Y.Tick.Label.Font.Size = 8
	p.Add(&alertBars{spans: spans, runs: runs, scale: scale})
	return p, vg.Points(alertRowHeight*float64(len(runs)) + 34)
}

// alertBars draws each span as a bar on its run's row of the strip.
type alertBars struct {
	spans []alertSpan
	runs  []int // policyColor index of each row, top first
	scale float64
}

// Plot implements plot.Plotter.
func (b *alertBars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, s := range b.spans {
		x0, x1 := max(s.start/b.scale, p.X.Min), min(s.end/b.scale, p.X.Max)
		if x1 <= x0 {
			continue
		}
		y := float64(len(b.runs) - 1 - slices.Index(b.runs, s.color))
		r := vg.Rectangle{Min: vg.Point{X: trX(x0), Y: trY(y - 0.32)}, Max: vg.Point{X: max(trX(x1), trX(x0)+vg.Points(1)), Y: trY(y + 0.32)}}
		c.SetColor(policyColor(s.color))
		c.Fill(r.Path())
	}
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
	return " Bottom strip, a row per run that had one, in the run's colour and on the same time axis (kept off the data panels so that no line is hidden): " +
		"quota alert episodes (evaluation traffic above the alert's share of a quota window production also bills to; runs[].alerts): " +
		strings.Join(parts, "; ") + "."
}
