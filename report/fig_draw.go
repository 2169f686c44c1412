package report

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/evalsched/lab/results"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// plotFigure is a figure of one plot.
func plotFigure(name, title, caption string, w, h vg.Length, p *plot.Plot) figSpec {
	return figSpec{name: name, title: title, caption: caption, w: w, h: h, draw: func(dc draw.Canvas) { drawPlot(p, dc) }}
}

// layoutCanvas is a canvas that records, as a figure is drawn on it, the
// data area of each plot and the box of each legend: a test draws every
// figure on one to find legends drawn over data.
type layoutCanvas struct {
	vg.Canvas
	data, legends []vg.Rectangle
	// paint is every stroke and fill, in drawing order, with the style
	// it was drawn in: a test finds shapes drawn over data lines.
	paint  []paintOp
	width  vg.Length
	dashes []vg.Length
	col    color.Color
	// entries are the names a reader can tell the runs apart by: panel
	// titles and legend entries.
	entries []entryMark
}

// thumbStyle is a line thumbnail's colour and dashes, "" for another.
func thumbStyle(th plot.Thumbnailer) string {
	if l, ok := th.(*plotter.Line); ok {
		r, g, b, a := l.Color.RGBA()
		return fmt.Sprint(r, g, b, a, l.Dashes)
	}
	return ""
}

// paintOp is one stroke or fill recorded by a layoutCanvas.
type paintOp struct {
	fill   bool
	path   vg.Path
	col    color.Color
	width  vg.Length
	dashes []vg.Length
}

// entryMark is a panel title or a legend entry recorded by a layoutCanvas.
type entryMark struct {
	name  string
	style string // a legend entry's line colour and dashes; "" for a title or another thumbnail
}

func (lc *layoutCanvas) SetLineWidth(w vg.Length) { lc.width = w; lc.Canvas.SetLineWidth(w) }

func (lc *layoutCanvas) SetLineDash(d []vg.Length, off vg.Length) {
	lc.dashes = d
	lc.Canvas.SetLineDash(d, off)
}

func (lc *layoutCanvas) SetColor(c color.Color) { lc.col = c; lc.Canvas.SetColor(c) }

func (lc *layoutCanvas) Stroke(p vg.Path) {
	lc.paint = append(lc.paint, paintOp{path: p, col: lc.col, width: lc.width, dashes: lc.dashes})
	lc.Canvas.Stroke(p)
}

func (lc *layoutCanvas) Fill(p vg.Path) {
	lc.paint = append(lc.paint, paintOp{fill: true, path: p, col: lc.col})
	lc.Canvas.Fill(p)
}

// layoutOn is the layoutCanvas c draws on, or nil; the plotting library
// wraps a canvas in another when it tiles it.
func layoutOn(c draw.Canvas) *layoutCanvas {
	var v vg.Canvas = c.Canvas
	for {
		switch w := v.(type) {
		case *layoutCanvas:
			return w
		case draw.Canvas:
			v = w.Canvas
		case *draw.Canvas:
			v = w.Canvas
		default:
			return nil
		}
	}
}

// drawPlot draws p in c (and records its data area and any legend of its
// own on a layoutCanvas).
func drawPlot(p *plot.Plot, c draw.Canvas) {
	p.Draw(c)
	if lc := layoutOn(c); lc != nil {
		dc := p.DataCanvas(c)
		lc.data = append(lc.data, dc.Rectangle)
		if p.Title.Text != "" {
			lc.entries = append(lc.entries, entryMark{name: p.Title.Text})
		}
		if r := p.Legend.Rectangle(dc); r.Size().X > 0 && r.Size().Y > 0 {
			lc.legends = append(lc.legends, r)
		}
	}
}

// barFigure is a figure of one groupedBars plot with its legend below.
func barFigure(name, title, caption string, h vg.Length, p *plot.Plot, legend []legendEntry) figSpec {
	if len(legend) < 2 {
		return plotFigure(name, title, caption, 10*vg.Inch, h, p)
	}
	return figSpec{name: name, title: title, caption: caption, w: 10 * vg.Inch, h: h + max(vg.Points(22), legendHeight(10*vg.Inch, legend)),
		draw: figureWithLegend("", [][]*plot.Plot{{p}}, legend)}
}

// panels draws a figure title and a grid of plots aligned on their axes.
func panels(dc draw.Canvas, title string, plots [][]*plot.Plot) {
	dc = drawFigureTitle(dc, title)
	rows := len(plots)
	if rows == 0 {
		return
	}
	t := panelTiles(rows, len(plots[0]))
	cs := plot.Align(plots, t, dc)
	for i := range plots {
		for j := range plots[i] {
			if plots[i][j] != nil {
				drawPlot(plots[i][j], cs[i][j])
			}
		}
	}
}

// drawFigureTitle draws a figure's title on top of dc (none when title is
// empty) and returns what is left under it.
func drawFigureTitle(dc draw.Canvas, title string) draw.Canvas {
	if title != "" {
		st := textStyle(13)
		st.Font = font.From(boldFont, 13)
		st.XAlign, st.YAlign = draw.XCenter, draw.YTop
		dc.FillText(st, vg.Point{X: (dc.Min.X + dc.Max.X) / 2, Y: dc.Max.Y - vg.Points(4)}, title)
		dc.Max.Y -= st.Height(title) + vg.Points(8)
	}
	return dc
}

// panelTiles are the tiles of a grid of plots in a figure.
func panelTiles(rows, cols int) draw.Tiles {
	return draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Points(14), PadY: vg.Points(10),
		PadTop: vg.Points(2), PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(10)}
}

// placeholder is a figure that says its data is missing.
func placeholder(name, title, msg string) figSpec {
	return figSpec{name: name, title: title, caption: "Not drawn: " + msg + ".", w: 6 * vg.Inch, h: 2 * vg.Inch,
		draw: func(dc draw.Canvas) {
			st := textStyle(13)
			st.Font = font.From(boldFont, 13)
			st.XAlign, st.YAlign = draw.XCenter, draw.YTop
			dc.FillText(st, vg.Point{X: (dc.Min.X + dc.Max.X) / 2, Y: dc.Max.Y - vg.Points(8)}, title)
			st = textStyle(11)
			st.Color = grey
			st.XAlign, st.YAlign = draw.XCenter, draw.YCenter
			dc.FillText(st, dc.Center(), wrapText(msg, 80))
		}}
}

// wrapText breaks s into lines of at most n characters at spaces.
func wrapText(s string, n int) string {
	var b strings.Builder
	line := 0
	for i, w := range strings.Fields(s) {
		if i > 0 {
			if line+1+len(w) > n {
				b.WriteByte('\n')
				line = 0
			} else {
				b.WriteByte(' ')
				line++
			}
		}
		b.WriteString(w)
		line += len(w)
	}
	return b.String()
}

// legendEntry is one entry of a legend drawn outside the plots.
type legendEntry struct {
	name  string
	thumb plot.Thumbnailer
}

// drawLegendRow draws legend entries side by side, centred in c.
func drawLegendRow(c draw.Canvas, entries []legendEntry) {
	st := textStyle(10)
	st.YAlign = draw.YCenter
	thumb := vg.Points(16)
	gap := vg.Points(14)
	total := vg.Length(0)
	for _, e := range entries {
		total += thumb + vg.Points(4) + st.Width(e.name) + gap
	}
	x := (c.Min.X+c.Max.X)/2 - total/2
	y := (c.Min.Y + c.Max.Y) / 2
	if lc := layoutOn(c); lc != nil {
		half := max(vg.Points(5), st.Height("Mg")/2)
		lc.legends = append(lc.legends, vg.Rectangle{Min: vg.Point{X: x, Y: y - half}, Max: vg.Point{X: x + total - gap, Y: y + half}})
	}
	for _, e := range entries {
		if lc := layoutOn(c); lc != nil {
			lc.entries = append(lc.entries, entryMark{name: e.name, style: thumbStyle(e.thumb)})
		}
		tc := c
		tc.Min = vg.Point{X: x, Y: y - vg.Points(5)}
		tc.Max = vg.Point{X: x + thumb, Y: y + vg.Points(5)}
		e.thumb.Thumbnail(&tc)
		x += thumb + vg.Points(4)
		c.FillText(st, vg.Point{X: x, Y: y}, e.name)
		x += st.Width(e.name) + gap
	}
}

// legendEntryWidth is an entry's width in a legend row.
func legendEntryWidth(e legendEntry) vg.Length {
	return vg.Points(16) + vg.Points(4) + textStyle(10).Width(e.name) + vg.Points(14)
}

// legendRows splits entries into rows no wider than width.
func legendRows(width vg.Length, entries []legendEntry) [][]legendEntry {
	var rows [][]legendEntry
	var row []legendEntry
	used := vg.Length(0)
	for _, e := range entries {
		w := legendEntryWidth(e)
		if len(row) > 0 && used+w > width {
			rows, row, used = append(rows, row), nil, 0
		}
		row, used = append(row, e), used+w
	}
	if len(row) > 0 {
		rows = append(rows, row)
	}
	return rows
}

// legendHeight is the height figureWithLegend's legend takes in a figure
// of width w.
func legendHeight(w vg.Length, legend []legendEntry) vg.Length {
	return vg.Length(len(legendRows(w-vg.Points(10), legend))) * vg.Points(20)
}

// figureWithLegend draws a title, a grid of aligned plots and the legend
// below them, in rows that fit the figure's width.
func figureWithLegend(title string, plots [][]*plot.Plot, legend []legendEntry) func(dc draw.Canvas) {
	return func(dc draw.Canvas) {
		// As many rows as the entries need at the figure's width (ten runs
		// do not fit on one), the first row on top.
		rows := legendRows(dc.Max.X-dc.Min.X-vg.Points(10), legend)
		for i := len(rows) - 1; i >= 0; i-- {
			strip := dc
			strip.Max.Y = dc.Min.Y + vg.Points(20)
			dc.Min.Y = strip.Max.Y
			drawLegendRow(strip, rows[i])
		}
		panels(dc, title, plots)
	}
}

// figureWithStrip is figureWithLegend for one column of plots with a
// strip of height stripH under them (the alert strip of a timeline): the
// plots share the height left equally, and every data area, the strip's
// included, starts and ends at the same x.
func figureWithStrip(title string, plots []*plot.Plot, strip *plot.Plot, stripH vg.Length, legend []legendEntry) func(dc draw.Canvas) {
	return func(dc draw.Canvas) {
		rows := legendRows(dc.Max.X-dc.Min.X-vg.Points(10), legend)
		for i := len(rows) - 1; i >= 0; i-- {
			row := dc
			row.Max.Y = dc.Min.Y + vg.Points(20)
			dc.Min.Y = row.Max.Y
			drawLegendRow(row, rows[i])
		}
		dc = drawFigureTitle(dc, title)
		t := panelTiles(len(plots), 1)
		bottom, top := dc, dc
		bottom.Max.Y = dc.Min.Y + stripH
		top.Min.Y = bottom.Max.Y
		grid := make([][]*plot.Plot, len(plots))
		for i, p := range plots {
			grid[i] = []*plot.Plot{p}
		}
		aligned := plot.Align(grid, t, top)
		cs := make([]draw.Canvas, 0, len(plots)+1)
		for i := range plots {
			cs = append(cs, aligned[i][0])
		}
		sc := draw.Crop(bottom, t.PadLeft, -t.PadRight, t.PadBottom, -t.PadY)
		cs = append(cs, sc)
		all := append(slices.Clone(plots), strip)
		var left, right vg.Length
		for i, p := range all {
			d := p.DataCanvas(cs[i])
			left, right = max(left, d.Min.X-cs[i].Min.X), max(right, cs[i].Max.X-d.Max.X)
		}
		for i, p := range all {
			d := p.DataCanvas(cs[i])
			gl, gr := d.Min.X-cs[i].Min.X, cs[i].Max.X-d.Max.X
			cs[i].Min.X, cs[i].Max.X = dc.Min.X+t.PadLeft+left-gl, dc.Max.X-t.PadRight-right+gr
			drawPlot(p, cs[i])
		}
	}
}

// addLine adds a line of xys to p unless it is empty.
func addLine(p *plot.Plot, xys plotter.XYs, c color.Color, width vg.Length, dashed bool) error {
	var ds []vg.Length
	if dashed {
		ds = dashes
	}
	return addStyledLine(p, xys, c, width, ds)
}

// addRunLine adds run ci's line of xys in its colour and dashes.
func addRunLine(p *plot.Plot, xys plotter.XYs, ci int, width vg.Length) error {
	return addStyledLine(p, xys, policyColor(ci), width, runDashes(ci))
}

// addStyledLine adds a line of xys with dashes ds (nil: solid) to p unless
// it is empty.
func addStyledLine(p *plot.Plot, xys plotter.XYs, c color.Color, width vg.Length, ds []vg.Length) error {
	if len(xys) == 0 {
		return nil
	}
	for i := range xys {
		xys[i].X, xys[i].Y = fin(xys[i].X), fin(xys[i].Y)
	}
	l, err := plotter.NewLine(xys)
	if err != nil {
		return err
	}
	l.Color, l.Width, l.Dashes = c, width, ds
	p.Add(extremeLine{l})
	return nil
}

// vMarks draws labelled vertical dotted lines across a plot: disturbances,
// the end of the warm-up, an arrival.
type vMarks struct {
	xs     []float64
	labels []string
	colors []color.Color
	dashed []bool
}

// markDashes is the dotted style of every vertical mark.
var markDashes = []vg.Length{vg.Points(1.2), vg.Points(2.4)}

// markThumb is the legend thumbnail of vertical marks.
func markThumb() plot.Thumbnailer {
	return &plotter.Line{LineStyle: draw.LineStyle{Color: grey, Width: vg.Points(1.3), Dashes: markDashes}}
}

func (m *vMarks) add(x float64, label string, c color.Color, dashed bool) {
	m.xs, m.labels, m.colors, m.dashed = append(m.xs, x), append(m.labels, label), append(m.colors, c), append(m.dashed, dashed)
}

// Plot implements plot.Plotter.
func (m *vMarks) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	for i, x := range m.xs {
		if x < p.X.Min || x > p.X.Max {
			continue
		}
		vx := trX(x)
		// Dotted, unlike any data line (solid or dashed); the warm-up end thinner.
		ls := draw.LineStyle{Color: m.colors[i], Width: vg.Points(1.3), Dashes: markDashes}
		if m.dashed[i] {
			ls.Width = vg.Points(0.9)
		}
		c.StrokeLine2(ls, vx, c.Min.Y, vx, c.Max.Y)
		if m.labels[i] != "" {
			st := textStyle(9)
			st.Color = m.colors[i]
			st.Rotation = math.Pi / 2
			st.XAlign, st.YAlign = draw.XRight, draw.YTop
			pt := vg.Point{X: vx + vg.Points(2), Y: c.Max.Y - vg.Points(3)}
			// a white box behind the label keeps it readable over the data
			w, h := st.Width(m.labels[i]), st.Height(m.labels[i])
			box := vg.Rectangle{Min: vg.Point{X: pt.X - vg.Points(1), Y: pt.Y - w - vg.Points(1)}, Max: vg.Point{X: pt.X + h + vg.Points(1), Y: pt.Y + vg.Points(1)}}
			c.SetColor(color.NRGBA{R: 255, G: 255, B: 255, A: 210})
			c.Fill(box.Path())
			c.FillText(st, pt, m.labels[i])
		}
	}
}

// timeAxis sets a time axis in unit ("h" or "min") over [0, end] seconds.
func timeAxis(a *plot.Axis, unit string, end float64) {
	scale := 60.0
	label := "time (min)"
	if unit == "h" {
		scale, label = 3600, "time (h:mm)"
	}
	a.Label.Text = label
	a.Min, a.Max = 0, max(end/scale, 1e-9)
	a.Tick.Marker = timeTicks{unit: unit}
}

// timeTicks labels a time axis in h:mm or minutes at a round step giving
// at most ten intervals, with a minor tick half-way.
type timeTicks struct{ unit string }

// Ticks implements plot.Ticker.
func (t timeTicks) Ticks(lo, hi float64) []plot.Tick {
	steps := []float64{1, 2, 5, 10, 15, 30, 60, 120, 240, 480, 1440, 2880, 10080}
	if t.unit == "h" {
		steps = []float64{1.0 / 12, 0.25, 0.5, 1, 2, 4, 6, 12, 24, 48, 168, 336, 720}
	}
	span := hi - lo
	if !(span > 0) || math.IsInf(span, 0) {
		return []plot.Tick{{Value: lo, Label: t.format(lo)}}
	}
	step := steps[len(steps)-1]
	for _, s := range steps {
		if span/s <= 10 {
			step = s
			break
		}
	}
	for span/step > 20 { // beyond the table
		step *= 2
	}
	var ticks []plot.Tick
	for k := math.Ceil(lo / step * 2); k/2*step <= hi+1e-9; k++ {
		v := k / 2 * step
		if int64(k)%2 == 0 {
			ticks = append(ticks, plot.Tick{Value: v, Label: t.format(v)})
		} else {
			ticks = append(ticks, plot.Tick{Value: v})
		}
	}
	return ticks
}

func (t timeTicks) format(v float64) string {
	if t.unit != "h" {
		return strconvFloat(v)
	}
	m := int64(math.Round(v * 60))
	sign := ""
	if m < 0 {
		sign, m = "-", -m
	}
	return fmt.Sprintf("%s%d:%02d", sign, m/60, m%60)
}

func strconvFloat(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%g", math.Round(v*100)/100)
}

func sortedXY(m map[float64]float64, scale float64) plotter.XYs {
	ts := make([]float64, 0, len(m))
	for t := range m {
		ts = append(ts, t)
	}
	sort.Float64s(ts)
	xys := make(plotter.XYs, 0, len(ts))
	for _, t := range ts {
		if !results.Finite(t) {
			continue
		}
		xys = append(xys, plotter.XY{X: t / scale, Y: fin(m[t])})
	}
	return xys
}
