package report

import (
	"fmt"
	"image/color"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// outageFigures: production minute by minute, a row per run (small
// multiples on one axis, so ten variants stay apart): each minute coloured
// by what production got, outage minutes red; only when a run replayed
// production traffic.
func outageFigures(o *input) ([]figSpec, error) {
	s := o.Summary
	type row struct {
		name    string
		outage  []bool // by minute
		served  []bool // by minute: some call answered
		minutes int64
	}
	var rows []row
	last := 0
	for i, r := range s.Runs {
		if len(r.Production) == 0 {
			continue
		}
		rw := row{name: roleName(s, i)}
		for _, p := range r.Production {
			rw.minutes += p.OutageMinutes
			for _, m := range p.Minutes {
				for len(rw.outage) <= m.Minute {
					rw.outage, rw.served = append(rw.outage, false), append(rw.served, false)
				}
				rw.outage[m.Minute] = rw.outage[m.Minute] || m.Outage
				rw.served[m.Minute] = rw.served[m.Minute] || m.Served > 0
				last = max(last, m.Minute+1)
			}
		}
		rows = append(rows, rw)
	}
	if len(rows) == 0 {
		return nil, nil
	}
	title := "Production, minute by minute (red: outage)"
	p := newPlot(title, "time (min)", "")
	p.X.Min, p.X.Max = 0, float64(last)
	p.Y.Min, p.Y.Max = -0.5, float64(len(rows))-0.5
	var ticks []plot.Tick
	var parts []string
	bars := &minuteBars{}
	for i, rw := range rows {
		y := float64(len(rows) - 1 - i)                                                                  // the first run on top
		ticks = append(ticks, plot.Tick{Value: y, Label: fmt.Sprintf("  %s (%d)", rw.name, rw.minutes)}) // the leading spaces: room the measured width lacks
		parts = append(parts, fmt.Sprintf("%s %d", rw.name, rw.minutes))
		for m := range rw.outage {
			c := rgb(0xDD, 0xDD, 0xDD) // no production call ended in the minute
			switch {
			case rw.outage[m]:
				c = eventRed
			case rw.served[m]:
				c = rgb(0x9E, 0xCA, 0xE1)
			}
			bars.add(float64(m), y, c)
		}
	}
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	p.Add(bars)
	caption := "Each row is a run's production traffic over the whole run, one cell per minute: red where the minute was an outage " +
		"(its success rate, answered ÷ answered + failed, below the stream's threshold), blue where production was served, " +
		"grey where no production call ended. Outage minutes in brackets: " + strings.Join(parts, ", ") + "."
	h := vg.Points(60 + 18*float64(len(rows)))
	return []figSpec{plotFigure("production-outage", title, caption, 10*vg.Inch, h, p)}, nil
}

// minuteBars draws a cell per (minute, row).
type minuteBars struct {
	x, y []float64
	c    []color.Color
}

func (b *minuteBars) add(x, y float64, c color.Color) {
	b.x, b.y, b.c = append(b.x, x), append(b.y, y), append(b.c, c)
}

// Plot implements plot.Plotter.
func (b *minuteBars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for i := range b.x {
		r := vg.Rectangle{Min: vg.Point{X: trX(b.x[i]), Y: trY(b.y[i] - 0.38)}, Max: vg.Point{X: trX(b.x[i] + 1), Y: trY(b.y[i] + 0.38)}}
		c.SetColor(b.c[i])
		c.Fill(r.Path())
	}
}
