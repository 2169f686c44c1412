package report

import (
	"fmt"
	"image/color"
	"slices"
	"strings"

	"github.com/evalsched/lab/internal/pareto"
	"github.com/evalsched/lab/results"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// tradeoffRun is one run on the trade-off figure: its evaluation
// throughput (jobs/h over the measurement window, grading apart) and the
// harm production took (whole run, every stream): its failed calls or its
// 429s, as the figure's harm says.
type tradeoffRun struct {
	name       string
	throughput float64
	harm       int64
	efficient  bool
}

// tradeoffHarm is what the trade-off figure counts against production.
type tradeoffHarm int

const (
	// harm429 counts production's tries rejected with 429
	// (runs[].production[].rejected_429): the harm when no production
	// call gave up, as with production retrying until answered.
	harm429 tradeoffHarm = iota
	// harmFailed counts production's calls that gave up
	// (runs[].production[].failed): what the product's users saw, once
	// any run had one.
	harmFailed
)

// noun is how the figure names the harm: "production 429s", "failed
// production calls".
func (h tradeoffHarm) noun() string {
	if h == harmFailed {
		return "failed production calls"
	}
	return "production 429s"
}

// tradeoffRuns are the runs with production traffic, each marked
// efficient when no other run has at least its throughput and at most its
// harm to production and is better on one of them (the Pareto front, the
// same one tune draws). The harm is failed production calls when any run
// had one, else production 429s. Nil unless at least two runs replayed
// production.
func tradeoffRuns(s results.Summary) ([]tradeoffRun, tradeoffHarm) {
	harm := harm429
	for _, r := range s.Runs {
		for _, p := range r.Production {
			if p.Failed > 0 {
				harm = harmFailed
			}
		}
	}
	var runs []tradeoffRun
	for i, r := range s.Runs {
		if len(r.Production) == 0 {
			continue
		}
		tr := tradeoffRun{name: roleName(s, i), throughput: fin(r.Total.ThroughputPerHour)}
		for _, p := range r.Production {
			if harm == harmFailed {
				tr.harm += p.Failed
			} else {
				tr.harm += p.Rejected429
			}
		}
		runs = append(runs, tr)
	}
	if len(runs) < 2 {
		return nil, harm
	}
	xs, ys := make([]float64, len(runs)), make([]float64, len(runs))
	for i, r := range runs {
		xs[i], ys[i] = r.throughput, float64(r.harm)
	}
	for _, i := range pareto.Front(xs, ys, pareto.Higher, pareto.Lower) {
		runs[i].efficient = true
	}
	return runs, harm
}

// tradeoffReading is the figure's one-line reading: which runs are
// efficient, from the most throughput down.
func tradeoffReading(runs []tradeoffRun, harm tradeoffHarm) string {
	var eff []tradeoffRun
	for _, r := range runs {
		if r.efficient {
			eff = append(eff, r)
		}
	}
	slices.SortStableFunc(eff, func(a, b tradeoffRun) int { return cmpDesc(a.throughput, b.throughput) })
	var parts []string
	for _, r := range eff {
		parts = append(parts, fmt.Sprintf("%s (%s jobs/h, %s %s)", r.name, perHour(r.throughput), count(r.harm), harm.noun()))
	}
	return fmt.Sprintf("Efficient runs (no other run has at least their evaluation throughput and at most their %s, better on one): %s; %d of %d runs.",
		harm.noun(), strings.Join(parts, ", "), len(eff), len(runs))
}

// perHour is a throughput at a precision that separates runs: whole jobs
// from 100 up, a tenth below.
func perHour(v float64) string {
	if v >= 100 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

func cmpDesc(a, b float64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

// tradeoffFigures: evaluation throughput against production's failed
// calls (or its 429s when no production call failed), a point per run (policy, controller or remedy variant), labelled with its
// name, the efficient runs joined as the front; only when at least two
// runs replayed production traffic.
func tradeoffFigures(o *input) ([]figSpec, error) {
	runs, harm := tradeoffRuns(o.Summary)
	if runs == nil {
		return nil, nil
	}
	const name = "tradeoff"
	title := "Trade-off: evaluation throughput against " + harm.noun()
	p := newPlot("", "evaluation throughput (jobs/h, measurement window)", harm.noun()+" (whole run)")
	newGrid(p, true, true)
	pts := &labelledPoints{}
	var front plotter.XYs
	maxX, maxY := 0.0, 0.0
	// Runs on the same spot (a variant that changed nothing measured) share
	// one point and one label.
	spot := map[plotter.XY]int{}
	for _, r := range runs {
		at := plotter.XY{X: r.throughput, Y: float64(r.harm)}
		if i, ok := spot[at]; ok {
			pts.labels[i] += ", " + r.name
			continue
		}
		spot[at] = len(pts.xs)
		pts.add(at.X, at.Y, r.name, r.efficient)
		if r.efficient {
			front = append(front, at)
		}
		maxX, maxY = max(maxX, r.throughput), max(maxY, float64(r.harm))
	}
	slices.SortFunc(front, func(a, b plotter.XY) int { return cmpDesc(b.X, a.X) })
	if len(front) > 1 {
		l, err := plotter.NewLine(front)
		if err != nil {
			return nil, err
		}
		l.Color, l.Width, l.Dashes = frontColor, vg.Points(1.5), dashes
		p.Add(l)
	}
	p.Add(pts)
	// Room above and to the right for the labels of the outermost points.
	p.X.Min, p.X.Max = 0, max(1, maxX)*1.12
	// and below zero, so that the runs with no harm to production sit above the
	// axis with their names beside them (no tick is drawn below zero).
	top := max(1, maxY) * 1.12
	p.Y.Min, p.Y.Max = -0.08*top, top
	p.Y.Tick.Marker = nonNegativeTicks{}
	legend := []legendEntry{
		{"efficient (Pareto front)", pointThumb(frontColor, true)},
		{"dominated by an efficient run", pointThumb(grey, false)},
	}
	against := "the 429s production's calls got over the whole run (runs[].production[].rejected_429; no production call gave up in any run, " +
		"so 429s are the harm production saw)"
	if harm == harmFailed {
		against = "production's calls that failed over the whole run, giving up after their last try (runs[].production[].failed; " +
			"a 429 retried until answered costs latency, a failed call is an error the product's users saw)"
	}
	caption := tradeoffReading(runs, harm) + " Each point is a run: its evaluation jobs completed per hour in the measurement window (grading lanes apart) " +
		"against " + against + ". Look along the dashed front for the throughput a remedy gives up to protect production."
	return []figSpec{{name: name, title: title, caption: caption, w: 10 * vg.Inch, h: 5 * vg.Inch,
		draw: figureWithLegend(title, [][]*plot.Plot{{p}}, legend)}}, nil
}

var frontColor = okabeIto[1]

// pointThumb is a legend thumbnail of a point, filled or hollow.
func pointThumb(c color.Color, filled bool) plot.Thumbnailer {
	return thumbFunc(func(dc *draw.Canvas) {
		drawPoint(*dc, dc.Center(), c, filled)
	})
}

type thumbFunc func(*draw.Canvas)

// Thumbnail implements plot.Thumbnailer.
func (f thumbFunc) Thumbnail(c *draw.Canvas) { f(c) }

func drawPoint(c draw.Canvas, at vg.Point, col color.Color, filled bool) {
	sty := draw.GlyphStyle{Color: col, Radius: vg.Points(4), Shape: draw.RingGlyph{}}
	if filled {
		sty.Shape = draw.CircleGlyph{}
	}
	c.DrawGlyph(sty, at)
}

// labelledPoints draws each run as a point with its name beside it, at the
// first of a few places around the point where the name overlaps no name
// or point already drawn and stays inside the data area.
type labelledPoints struct {
	xs, ys    []float64
	labels    []string
	efficient []bool
}

func (l *labelledPoints) add(x, y float64, label string, efficient bool) {
	l.xs, l.ys, l.labels, l.efficient = append(l.xs, x), append(l.ys, y), append(l.labels, label), append(l.efficient, efficient)
}

// Plot implements plot.Plotter.
func (l *labelledPoints) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	at := make([]vg.Point, len(l.xs))
	var taken []vg.Rectangle
	for i := range l.xs {
		at[i] = vg.Point{X: trX(l.xs[i]), Y: trY(l.ys[i])}
		r := vg.Points(4)
		taken = append(taken, vg.Rectangle{Min: vg.Point{X: at[i].X - r, Y: at[i].Y - r}, Max: vg.Point{X: at[i].X + r, Y: at[i].Y + r}})
	}
	for i := range l.xs {
		col := grey
		if l.efficient[i] {
			col = frontColor
		}
		drawPoint(c, at[i], col, l.efficient[i])
	}
	// Efficient runs are named first: they get the best places.
	order := make([]int, len(l.xs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if l.efficient[a] != l.efficient[b] {
			if l.efficient[a] {
				return -1
			}
			return 1
		}
		return 0
	})
	for _, i := range order {
		st := textStyle(9)
		if !l.efficient[i] {
			st.Color = rgb(0x55, 0x55, 0x55)
		}
		box, pt, far := placeLabel(c.Rectangle, taken, at[i], st.Width(l.labels[i]), st.Height(l.labels[i]))
		taken = append(taken, box)
		if far { // a name moved away from its point is tied to it
			end := vg.Point{X: min(max(at[i].X, box.Min.X), box.Max.X), Y: min(max(at[i].Y, box.Min.Y), box.Max.Y)}
			c.StrokeLine2(draw.LineStyle{Color: rgb(0xAA, 0xAA, 0xAA), Width: vg.Points(0.6)}, at[i].X, at[i].Y, end.X, end.Y)
		}
		st.XAlign, st.YAlign = draw.XLeft, draw.YBottom
		// a white box behind the name keeps it readable over the front's line
		c.SetColor(color.NRGBA{R: 255, G: 255, B: 255, A: 210})
		c.Fill(box.Path())
		c.FillText(st, pt, l.labels[i])
	}
}

// placeLabel finds where a label of size w×h goes beside a point at pt:
// the first candidate place (right, left, above, below, then further out)
// inside area that overlaps nothing taken, else the first inside area. It
// returns the label's box, the point its text starts at (bottom left) and
// whether the place is away from the point (beyond the first ring).
func placeLabel(area vg.Rectangle, taken []vg.Rectangle, pt vg.Point, w, h vg.Length) (vg.Rectangle, vg.Point, bool) {
	gap := vg.Points(6)
	var cands []vg.Point // bottom-left corners
	for k := vg.Length(0); k < 4; k++ {
		d := k * (h + vg.Points(1))
		cands = append(cands,
			vg.Point{X: pt.X + gap, Y: pt.Y - h/2 + d}, vg.Point{X: pt.X + gap, Y: pt.Y - h/2 - d},
			vg.Point{X: pt.X - gap - w, Y: pt.Y - h/2 + d}, vg.Point{X: pt.X - gap - w, Y: pt.Y - h/2 - d},
			vg.Point{X: pt.X - w/2, Y: pt.Y + gap + d}, vg.Point{X: pt.X - w/2, Y: pt.Y - gap - h - d})
	}
	inside := func(r vg.Rectangle) bool {
		return r.Min.X >= area.Min.X && r.Max.X <= area.Max.X && r.Min.Y >= area.Min.Y && r.Max.Y <= area.Max.Y
	}
	first := -1
	for i, c := range cands {
		r := vg.Rectangle{Min: c, Max: vg.Point{X: c.X + w, Y: c.Y + h}}
		if !inside(r) {
			continue
		}
		if first < 0 {
			first = i
		}
		free := true
		for _, t := range taken {
			free = free && !overlaps(r, t)
		}
		if free {
			return r, c, i >= 6
		}
	}
	if first < 0 {
		first = 0
	}
	c := cands[first]
	return vg.Rectangle{Min: c, Max: vg.Point{X: c.X + w, Y: c.Y + h}}, c, first >= 6
}

// nonNegativeTicks are intTicks without the ticks below zero: a count's
// axis that starts a little below zero for room.
type nonNegativeTicks struct{}

// Ticks implements plot.Ticker.
func (nonNegativeTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := intTicks{}.Ticks(lo, hi)
	out := ts[:0]
	for _, t := range ts {
		if t.Value >= 0 {
			out = append(out, t)
		}
	}
	return out
}

// overlaps reports whether two rectangles share more than an edge.
func overlaps(a, b vg.Rectangle) bool {
	return a.Min.X < b.Max.X && b.Min.X < a.Max.X && a.Min.Y < b.Max.Y && b.Min.Y < a.Max.Y
}
