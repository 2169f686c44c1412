package results

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Figure is one figure written by WriteFigures, as a PNG and an SVG file.
type Figure struct {
	Name    string // file stem, e.g. "throughput"
	Title   string
	Caption string // what the figure shows and what to look for
	PNG     string // path of the PNG file
	SVG     string // path of the SVG file
}

// Figure settings.
var (
	// FigureTopLanes is how many lanes the lane figures show before one
	// "other (K lanes)" bar.
	FigureTopLanes = 10
	// FigureHotLanes is how many lanes get a timeline figure.
	FigureHotLanes = 6
	// FigureDPI is the resolution of the PNG files.
	FigureDPI = 110
)

// WriteFigures reads the output directory dir (summary.json, series.csv,
// batches.csv) and writes every figure into out (created if missing), each
// as NAME.png and NAME.svg. A figure whose data is missing or degenerate is
// still written, as a panel that says what is missing.
func WriteFigures(dir string, out string) ([]Figure, error) {
	o, err := LoadOutputs(dir)
	if err != nil {
		return nil, err
	}
	return WriteFiguresFrom(o, out)
}

// WriteFiguresFrom is WriteFigures on outputs already loaded.
func WriteFiguresFrom(o *Outputs, out string) ([]Figure, error) {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	var figs []Figure
	for _, spec := range figureSpecs(o) {
		png, svg, err := renderSafely(spec)
		if err != nil {
			// Never lose a figure to a plotting library error: say so instead.
			spec = placeholder(spec.name, spec.title, "could not be drawn: "+err.Error())
			if png, svg, err = renderSafely(spec); err != nil {
				return figs, fmt.Errorf("figure %s: %w", spec.name, err)
			}
		}
		f := Figure{Name: spec.name, Title: spec.title, Caption: spec.caption,
			PNG: filepath.Join(out, spec.name+".png"), SVG: filepath.Join(out, spec.name+".svg")}
		if err := WriteFileAtomic(f.PNG, png); err != nil {
			return figs, err
		}
		if err := WriteFileAtomic(f.SVG, svg); err != nil {
			return figs, err
		}
		figs = append(figs, f)
	}
	return figs, nil
}

// figSpec is a figure to draw: draw is called once per output format.
type figSpec struct {
	name, title, caption string
	w, h                 vg.Length
	draw                 func(dc draw.Canvas)
}

// figureSpecs lists the figures of an output directory, in report order.
func figureSpecs(o *Outputs) []figSpec {
	specs := []func(*Outputs) []figSpec{
		func(o *Outputs) []figSpec { return []figSpec{throughputFigure(o)} },
		func(o *Outputs) []figSpec { return []figSpec{splitFigure(o)} },
		timelineFigures,
		func(o *Outputs) []figSpec { return []figSpec{batchFigure(o)} },
		func(o *Outputs) []figSpec { return []figSpec{tierFigure(o)} },
		func(o *Outputs) []figSpec { return []figSpec{jainFigure(o)} },
		rejectionFigures,
	}
	names := []string{"throughput", "job-time-split", "timeline", "batch-progress", "tier-shares", "fairness-jain", "rejections-429"}
	var out []figSpec
	for i, f := range specs {
		fs, err := safeSpecs(f, o)
		if err != nil {
			fs = []figSpec{placeholder(names[i], names[i], "could not be prepared: "+err.Error())}
		}
		out = append(out, fs...)
	}
	return out
}

func safeSpecs(f func(*Outputs) []figSpec, o *Outputs) (fs []figSpec, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	return f(o), nil
}

// renderSafely draws a figure as PNG and SVG, turning a panic of the
// plotting library into an error.
func renderSafely(s figSpec) (png, svg []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	img := vgimg.NewWith(vgimg.UseWH(s.w, s.h), vgimg.UseDPI(FigureDPI), vgimg.UseBackgroundColor(color.White))
	s.draw(draw.New(img))
	var pb bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(&pb); err != nil {
		return nil, nil, err
	}
	sv := vgsvg.New(s.w, s.h)
	white := draw.New(sv)
	white.SetColor(color.White)
	white.Fill(white.Rectangle.Path())
	s.draw(white)
	var sb bytes.Buffer
	if _, err := sv.WriteTo(&sb); err != nil {
		return nil, nil, err
	}
	return pb.Bytes(), sb.Bytes(), nil
}

// ---------------------------------------------------------------------------
// Style

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
	grey      = rgb(0x88, 0x88, 0x88)
	lightGrey = rgb(0xBB, 0xBB, 0xBB)
	eventRed  = rgb(0xC0, 0x1C, 0x28)
)

func rgb(r, g, b uint8) color.Color { return color.RGBA{R: r, G: g, B: b, A: 255} }

// policyColor is the colour of run i: the baseline orange, the candidate blue.
func policyColor(i int) color.Color { return okabeIto[i%len(okabeIto)] }

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

// fin maps NaN and infinities (which the plotting library rejects) to 0.
func fin(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

// plotFigure is a figure of one plot.
func plotFigure(name, title, caption string, w, h vg.Length, p *plot.Plot) figSpec {
	return figSpec{name: name, title: title, caption: caption, w: w, h: h, draw: func(dc draw.Canvas) { p.Draw(dc) }}
}

// panels draws a figure title and a grid of plots aligned on their axes.
func panels(dc draw.Canvas, title string, plots [][]*plot.Plot) {
	if title != "" {
		st := textStyle(13)
		st.Font = font.From(boldFont, 13)
		st.XAlign, st.YAlign = draw.XCenter, draw.YTop
		dc.FillText(st, vg.Point{X: (dc.Min.X + dc.Max.X) / 2, Y: dc.Max.Y - vg.Points(4)}, title)
		dc.Max.Y -= st.Height(title) + vg.Points(8)
	}
	rows := len(plots)
	if rows == 0 {
		return
	}
	cols := len(plots[0])
	t := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Points(14), PadY: vg.Points(10),
		PadTop: vg.Points(2), PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(10)}
	cs := plot.Align(plots, t, dc)
	for i := range plots {
		for j := range plots[i] {
			if plots[i][j] != nil {
				plots[i][j].Draw(cs[i][j])
			}
		}
	}
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

// ---------------------------------------------------------------------------
// Custom plotters

// vMarks draws labelled vertical lines across a plot: disturbances, the end
// of the warm-up.
type vMarks struct {
	xs     []float64
	labels []string
	colors []color.Color
	dashed []bool
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
		ls := draw.LineStyle{Color: m.colors[i], Width: vg.Points(1)}
		if m.dashed[i] {
			ls.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
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

// ---------------------------------------------------------------------------
// Data helpers

// runsOf returns the baseline and candidate runs: the first two runs of a
// comparison, or (nil, the run) for a single run.
func runsOf(s Summary) (old, new *Run) {
	switch len(s.Runs) {
	case 0:
		return nil, nil
	case 1:
		return nil, &s.Runs[0]
	}
	return &s.Runs[0], &s.Runs[1]
}

// comparisonRows is the summary's comparison, or one computed from its first
// two runs.
func comparisonRows(s Summary) []LaneComparison {
	if len(s.Comparison) > 0 {
		return s.Comparison
	}
	old, new := runsOf(s)
	if old == nil {
		return nil
	}
	return Compare(*old, *new)
}

// timeUnit picks hours for runs longer than three hours, else minutes.
func timeUnit(end float64) (scale float64, unit string) {
	if end > 3*3600 {
		return 3600, "h"
	}
	return 60, "min"
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

// runEnd is the end of the longest run, in seconds (0 if none).
func runEnd(o *Outputs) float64 {
	end := 0.0
	for _, r := range o.Summary.Runs {
		end = max(end, fin(r.Window[1]))
	}
	for _, r := range o.Series {
		end = max(end, fin(r.T))
	}
	return end
}

func policyIndex(s Summary) map[string]int {
	m := map[string]int{}
	for i, r := range s.Runs {
		if _, ok := m[r.Policy]; !ok {
			m[r.Policy] = i
		}
	}
	return m
}

// policies lists the policies of the summary's runs, then any others that
// only appear in the CSV files.
func policies(o *Outputs) []string {
	var ps []string
	seen := map[string]bool{}
	for _, r := range o.Summary.Runs {
		if !seen[r.Policy] {
			seen[r.Policy] = true
			ps = append(ps, r.Policy)
		}
	}
	for _, r := range o.Series {
		if !seen[r.Policy] {
			seen[r.Policy] = true
			ps = append(ps, r.Policy)
		}
	}
	return ps
}

func roleName(s Summary, i int) string {
	if i >= len(s.Runs) {
		return ""
	}
	name := s.Runs[i].Policy
	if len(s.Runs) >= 2 && i < 2 {
		name += [2]string{" (old)", " (new)"}[i]
	}
	return name
}

func formatMult(m *float64) string {
	if m == nil {
		return "new"
	}
	if *m >= 9.95 {
		return fmt.Sprintf("%.0f×", *m)
	}
	return fmt.Sprintf("%.2f×", *m)
}

func formatCount(v float64) string {
	switch {
	case v >= 1e4:
		return fmt.Sprintf("%.0fk", v/1e3)
	case v >= 1e3:
		return fmt.Sprintf("%.1fk", v/1e3)
	case v >= 10 || v == 0:
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

func safeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// ---------------------------------------------------------------------------
// Lane bars (throughput, 429s)

// barGroup is one category of a grouped horizontal bar chart: a value per
// series and a note printed right of the group.
type barGroup struct {
	name   string
	values []float64
	note   string
}

// groupedBars draws horizontal grouped bars, the first group at the top.
func groupedBars(title, xlabel string, series []string, groups []barGroup) (*plot.Plot, vg.Length, error) {
	n := len(groups)
	h := vg.Length(max(3.2, 0.22*float64(n*max(len(series), 1))+0.18*float64(n)+1.5)) * vg.Inch
	p := newPlot(title, xlabel, "")
	newGrid(p, true, false)
	names := make([]string, n)
	for i, g := range groups {
		names[n-1-i] = g.name
	}
	p.NominalY(names...)
	p.Y.Tick.Label.Font = font.From(sansFont, 10)
	area := h - 1.3*vg.Inch
	bw := area / vg.Length(n) * 0.8 / vg.Length(max(len(series), 1))
	maxV := 0.0
	for k, s := range series {
		vals := make(plotter.Values, n)
		for i, g := range groups {
			if k < len(g.values) {
				vals[n-1-i] = max(0, fin(g.values[k]))
				maxV = max(maxV, vals[n-1-i])
			}
		}
		b, err := plotter.NewBarChart(vals, bw)
		if err != nil {
			return nil, 0, err
		}
		b.Horizontal = true
		b.Color = policyColor(k)
		b.LineStyle.Width = 0
		// the first series on top within a group
		b.Offset = (vg.Length(len(series)-1)/2 - vg.Length(k)) * bw
		p.Add(b)
		p.Legend.Add(s, b)
	}
	var xys plotter.XYs
	var notes []string
	for i, g := range groups {
		if g.note == "" {
			continue
		}
		top := 0.0
		for _, v := range g.values {
			top = max(top, fin(v))
		}
		xys = append(xys, plotter.XY{X: top, Y: float64(n - 1 - i)})
		notes = append(notes, g.note)
	}
	if len(xys) > 0 {
		l, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: notes})
		if err != nil {
			return nil, 0, err
		}
		for i := range l.TextStyle {
			st := textStyle(10)
			st.Font = font.From(boldFont, 10)
			st.YAlign = draw.YCenter
			l.TextStyle[i] = st
		}
		l.Offset = vg.Point{X: vg.Points(4)}
		p.Add(l)
	}
	p.X.Min = 0
	if maxV <= 0 {
		maxV = 1
	}
	// Room for the notes and the legend: put the legend where the bars are
	// short, else widen the axis.
	p.X.Max = maxV * 1.12
	p.Legend.Top = false
	short := func(gs []barGroup) bool {
		for _, g := range gs {
			for _, v := range g.values {
				if fin(v) > 0.55*maxV {
					return false
				}
			}
		}
		return true
	}
	switch {
	case short(groups[max(0, n-2):]):
	case short(groups[:min(2, n)]):
		p.Legend.Top = true
	default:
		p.X.Max = maxV * 1.7
	}
	return p, h, nil
}

// throughputFigure: per-lane throughput, old vs new, top lanes and the rest.
func throughputFigure(o *Outputs) figSpec {
	const name = "throughput"
	s := o.Summary
	old, new := runsOf(s)
	if new == nil {
		return placeholder(name, "Lane throughput", "summary.json has no run")
	}
	top := max(FigureTopLanes, 1)
	xlabel := "completed jobs per hour (measurement window)"
	if old == nil {
		lanes := append([]Lane(nil), new.Lanes...)
		sort.SliceStable(lanes, func(i, j int) bool { return lanes[i].ThroughputPerHour > lanes[j].ThroughputPerHour })
		if len(lanes) == 0 {
			return placeholder(name, "Lane throughput", "the run has no lane with any job")
		}
		var groups []barGroup
		for i, l := range lanes {
			if i == top {
				g := barGroup{name: fmt.Sprintf("other (%d lanes)", len(lanes)-top), values: []float64{0}}
				for _, r := range lanes[top:] {
					g.values[0] += fin(r.ThroughputPerHour)
				}
				g.note = formatCount(g.values[0]) + "/h"
				groups = append(groups, g)
				break
			}
			groups = append(groups, barGroup{name: l.Model, values: []float64{l.ThroughputPerHour}, note: formatCount(fin(l.ThroughputPerHour)) + "/h"})
		}
		title := fmt.Sprintf("Lane throughput: %s (total %s jobs/h)", new.Policy, formatCount(fin(new.Total.ThroughputPerHour)))
		p, h, err := groupedBars(title, xlabel, []string{new.Policy}, groups)
		if err != nil {
			panic(err)
		}
		p.Legend = plot.NewLegend() // one series: no legend needed
		return plotFigure(name, title, fmt.Sprintf("Jobs completed per hour in the measurement window for the %d busiest lanes of %s "+
			"and the rest summed. A single run has no baseline to compare with: run sim compare for multipliers.", min(top, len(lanes)), new.Policy), 10*vg.Inch, h, p)
	}
	rows := comparisonRows(s)
	if len(rows) == 0 {
		return placeholder(name, "Lane throughput", "no lane has any job in either run")
	}
	var groups []barGroup
	for i, r := range rows {
		if i == top {
			rest := rows[top:]
			var o, n float64
			for _, r := range rest {
				o += fin(r.OldPerHour)
				n += fin(r.NewPerHour)
			}
			g := barGroup{name: fmt.Sprintf("other (%d lanes)", len(rest)), values: []float64{o, n}}
			var m *float64
			if o > 0 {
				v := n / o
				m = &v
			}
			g.note = formatMult(m)
			groups = append(groups, g)
			break
		}
		groups = append(groups, barGroup{name: r.Model, values: []float64{r.OldPerHour, r.NewPerHour}, note: formatMult(r.Multiplier)})
	}
	tm := Compare(Run{Lanes: []Lane{old.Total}}, Run{Lanes: []Lane{new.Total}})[0].Multiplier
	title := fmt.Sprintf("Lane throughput, %s vs %s (total %s → %s jobs/h, %s)", old.Policy, new.Policy,
		formatCount(fin(old.Total.ThroughputPerHour)), formatCount(fin(new.Total.ThroughputPerHour)), formatMult(tm))
	p, h, err := groupedBars(title, xlabel, []string{roleName(s, 0), roleName(s, 1)}, groups)
	if err != nil {
		panic(err)
	}
	var big []string
	for _, r := range rows[:min(top, len(rows))] {
		if r.Multiplier != nil && *r.Multiplier >= 1.5 {
			big = append(big, fmt.Sprintf("%s %s", r.Model, formatMult(r.Multiplier)))
		}
	}
	caption := fmt.Sprintf("Jobs completed per hour in the measurement window, per lane, under %s (old, orange) and %s (new, blue) "+
		"on the identical job stream: the %d busiest lanes (by new throughput) and the other %d lanes summed. "+
		"The number right of each pair is new ÷ old (\"new\" where the baseline completed nothing). ",
		old.Policy, new.Policy, min(top, len(rows)), max(0, len(rows)-top))
	if len(big) > 0 {
		caption += "Look for the lanes whose fixed cap held them back — here " + strings.Join(big, ", ") + " — "
		caption += "and check that the other lanes did not lose throughput (multipliers near 1×)."
	} else {
		caption += "No top lane gained 1.5× or more: check whether the baseline's caps bind at all in this scenario."
	}
	return plotFigure(name, title, caption, 10*vg.Inch, h, p)
}

// rejectionFigures: 429s per lane (and over time if series.csv has a
// rejected_429 column), only when a run has any.
func rejectionFigures(o *Outputs) []figSpec {
	const name = "rejections-429"
	s := o.Summary
	total := int64(0)
	byModel := map[string][]float64{}
	for i, r := range s.Runs {
		total += r.Total.Rejected429
		for _, l := range r.Lanes {
			if l.Rejected429 > 0 {
				v := byModel[l.Model]
				if v == nil {
					v = make([]float64, len(s.Runs))
				}
				v[i] += float64(l.Rejected429)
				byModel[l.Model] = v
			}
		}
	}
	if total == 0 && len(byModel) == 0 {
		return nil
	}
	type kv struct {
		model string
		v     []float64
		sum   float64
	}
	var lanes []kv
	for m, v := range byModel {
		sum := 0.0
		for _, x := range v {
			sum += x
		}
		lanes = append(lanes, kv{m, v, sum})
	}
	sort.Slice(lanes, func(i, j int) bool {
		if lanes[i].sum != lanes[j].sum {
			return lanes[i].sum > lanes[j].sum
		}
		return lanes[i].model < lanes[j].model
	})
	top := max(FigureTopLanes, 1)
	var groups []barGroup
	for i, l := range lanes {
		if i == top {
			g := barGroup{name: fmt.Sprintf("other (%d lanes)", len(lanes)-top), values: make([]float64, len(s.Runs))}
			for _, r := range lanes[top:] {
				for k, x := range r.v {
					g.values[k] += x
				}
			}
			groups = append(groups, g)
			break
		}
		groups = append(groups, barGroup{name: l.model, values: l.v})
	}
	var series []string
	for i := range s.Runs {
		series = append(series, roleName(s, i))
	}
	var figs []figSpec
	if len(groups) > 0 {
		title := "Rate-limit rejections (429) per lane"
		p, h, err := groupedBars(title, "tries rejected with 429 in the measurement window", series, groups)
		if err != nil {
			panic(err)
		}
		figs = append(figs, plotFigure(name, title, "Tries the providers rejected with 429 (a quota was full) per lane and policy, "+
			"in the measurement window. A policy that admits more jobs than the organisation's rpm/tpm allow turns the excess into "+
			"429s and backoff: look for lanes where the new policy has many more 429s than the old one.", 10*vg.Inch, h, p))
	}
	if f, ok := rejectionSeriesFigure(o); ok {
		figs = append(figs, f)
	}
	if f, ok := quotaUseFigure(o); ok {
		figs = append(figs, f)
	}
	if len(figs) == 0 {
		figs = append(figs, placeholder(name, "Rate-limit rejections (429)",
			fmt.Sprintf("the runs had %d rejections in total but no lane lists any", total)))
	}
	return figs
}

// rejectionSeriesFigure plots the rejected_429 series.csv column over time,
// summed over models, if the file has one.
func rejectionSeriesFigure(o *Outputs) (figSpec, bool) {
	return extraSeriesFigure(o, "rejected_429", func(acc, v float64) float64 { return acc + v }, 1, true,
		"rejections-429-over-time", "429s over time (all models)", "429s per sample interval",
		"Tries rejected with 429 per series interval, summed over all models, "+
			"from series.csv's rejected_429 column. Look for bursts of 429s after bursts of batches or when the scheduler raises a limit.")
}

// quotaUseFigure plots the quota_use series.csv column over time: at each
// sample, the fullest quota window of any organisation, as a percentage.
func quotaUseFigure(o *Outputs) (figSpec, bool) {
	return extraSeriesFigure(o, "quota_use", math.Max, 100, false,
		"quota-use-over-time", "Rate-limit usage over time (fullest quota window)", "% of the limit in use",
		"At each sample, the fullest rolling quota window (rpm, tpm, rpd or tpd) of any organisation a busy model belongs to, "+
			"as a percentage of its limit, from series.csv's quota_use column. Near 100% the provider answers 429: "+
			"look for the policy that keeps usage pinned at the limit, and for how long.")
}

// extraSeriesFigure plots one optional series.csv column over time, per
// policy, combining the models of a sample with combine; scale multiplies
// the values; the legend goes at the top or the bottom, where the lines
// leave room. ok is false when the column is missing or all zero.
func extraSeriesFigure(o *Outputs, column string, combine func(acc, v float64) float64, scale float64, legendTop bool, name, title, ylabel, caption string) (figSpec, bool) {
	col := -1
	for i, h := range o.SeriesExtra {
		if h == column {
			col = i
		}
	}
	if col < 0 {
		return figSpec{}, false
	}
	tscale, unit := timeUnit(runEnd(o))
	p := newPlot(title, "time ("+unit+")", ylabel)
	newGrid(p, true, true)
	pidx := policyIndex(o.Summary)
	any := false
	for k, pol := range policies(o) {
		acc := map[float64]float64{}
		for _, r := range o.Series {
			if r.Policy == pol && col < len(r.Extra) {
				v := scale * fin(r.Extra[col])
				acc[r.T] = combine(acc[r.T], v)
				any = any || v != 0
			}
		}
		xys := sortedXY(acc, tscale)
		if len(xys) == 0 {
			continue
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			panic(err)
		}
		c := k
		if i, ok := pidx[pol]; ok {
			c = i
		}
		l.Color = policyColor(c)
		l.Width = vg.Points(1.2)
		p.Add(l)
		p.Legend.Add(pol, l)
	}
	if !any {
		return figSpec{}, false
	}
	timeAxis(&p.X, unit, runEnd(o))
	p.Legend.Top = legendTop
	return plotFigure(name, title, caption, 10*vg.Inch, 4*vg.Inch, p), true
}

func sortedXY(m map[float64]float64, scale float64) plotter.XYs {
	ts := make([]float64, 0, len(m))
	for t := range m {
		ts = append(ts, t)
	}
	sort.Float64s(ts)
	xys := make(plotter.XYs, 0, len(ts))
	for _, t := range ts {
		if math.IsNaN(t) || math.IsInf(t, 0) {
			continue
		}
		xys = append(xys, plotter.XY{X: t / scale, Y: fin(m[t])})
	}
	return xys
}

// ---------------------------------------------------------------------------
// Job time split

var splitParts = []struct {
	name string
	get  func(Split) float64
}{
	{"queued", func(s Split) float64 { return s.Queued.Mean }},
	{"container start", func(s Split) float64 { return s.Start.Mean }},
	{"gateway wait", func(s Split) float64 { return s.Gateway.Mean }},
	{"LLM", func(s Split) float64 { return s.LLM.Mean }},
	{"tool", func(s Split) float64 { return s.Tool.Mean }},
}

var splitColors = []color.Color{okabeIto[4], okabeIto[6], okabeIto[3], okabeIto[1], okabeIto[2]}

// splitFigure: mean job time per part, stacked, per policy; a second panel
// without the queue so the parts after admission stay readable.
func splitFigure(o *Outputs) figSpec {
	const name = "job-time-split"
	s := o.Summary
	if len(s.Runs) == 0 {
		return placeholder(name, "Job time split", "summary.json has no run")
	}
	any := false
	for _, r := range s.Runs {
		if r.Total.Completed > 0 || r.Total.JobTime.Total.Mean > 0 {
			any = true
		}
	}
	if !any {
		return placeholder(name, "Job time split", "no job completed in the measurement window of any run")
	}
	n := len(s.Runs)
	names := make([]string, n)
	for i := range s.Runs {
		names[n-1-i] = roleName(s, i)
	}
	var legend []legendEntry
	mk := func(title string, from int) *plot.Plot {
		p := newPlot(title, "mean seconds per completed job", "")
		newGrid(p, true, false)
		p.NominalY(names...)
		var prev *plotter.BarChart
		totals := make([]float64, n)
		for k := from; k < len(splitParts); k++ {
			vals := make(plotter.Values, n)
			for i, r := range s.Runs {
				vals[n-1-i] = max(0, fin(splitParts[k].get(r.Total.JobTime)))
				totals[n-1-i] += vals[n-1-i]
			}
			b, err := plotter.NewBarChart(vals, vg.Points(26))
			if err != nil {
				panic(err)
			}
			b.Horizontal = true
			b.Color = splitColors[k]
			b.LineStyle.Width = 0
			if prev != nil {
				b.StackOn(prev)
			}
			prev = b
			p.Add(b)
			if from == 0 {
				legend = append(legend, legendEntry{splitParts[k].name, b})
			}
		}
		xys := make(plotter.XYs, n)
		labels := make([]string, n)
		for i := range totals {
			xys[i] = plotter.XY{X: totals[i], Y: float64(i)}
			labels[i] = fmt.Sprintf("%.0f s", totals[i])
		}
		l, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
		if err != nil {
			panic(err)
		}
		for i := range l.TextStyle {
			st := textStyle(10)
			st.YAlign = draw.YCenter
			l.TextStyle[i] = st
		}
		l.Offset = vg.Point{X: vg.Points(4)}
		p.Add(l)
		p.X.Min = 0
		p.X.Max = max(p.X.Max, 1) * 1.15
		return p
	}
	left := mk("all parts", 0)
	right := mk("after admission (without queued)", 1)
	title := "Where a job's time goes: mean seconds per completed job (all lanes)"
	var parts []string
	for _, r := range s.Runs {
		t := r.Total.JobTime
		parts = append(parts, fmt.Sprintf("%s: %.0f s, of which queued %.0f s (%.0f%%), gateway wait %.0f s, LLM %.0f s, tool %.0f s",
			r.Policy, t.Total.Mean, t.Queued.Mean, 100*ratio(t.Queued.Mean, t.Total.Mean), t.Gateway.Mean, t.LLM.Mean, t.Tool.Mean))
	}
	caption := "Mean time per completed job (all lanes, measurement window) split into queued (waiting for admission, " +
		"no container), container start, gateway wait (holding a container while every call of the turn waits at the gateway), " +
		"LLM and tool. The right panel leaves out the queue so the container-holding parts are readable. " +
		"Look for a shorter queue under the new policy without the gateway wait (the container waste) growing. " +
		strings.Join(parts, "; ") + "."
	h := vg.Length(max(2.6, 0.5*float64(n)+2.0)) * vg.Inch
	return figSpec{name: name, title: title, caption: caption, w: 11 * vg.Inch, h: h, draw: func(dc draw.Canvas) {
		// legend strip at the bottom
		strip := dc
		strip.Max.Y = dc.Min.Y + vg.Points(22)
		dc.Min.Y = strip.Max.Y
		drawLegendRow(strip, legend)
		panels(dc, title, [][]*plot.Plot{{left, right}})
	}}
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
	for _, e := range entries {
		tc := c
		tc.Min = vg.Point{X: x, Y: y - vg.Points(5)}
		tc.Max = vg.Point{X: x + thumb, Y: y + vg.Points(5)}
		e.thumb.Thumbnail(&tc)
		x += thumb + vg.Points(4)
		c.FillText(st, vg.Point{X: x, Y: y}, e.name)
		x += st.Width(e.name) + gap
	}
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

// figureWithLegend draws a title, a grid of aligned plots and a legend row
// below them.
func figureWithLegend(title string, plots [][]*plot.Plot, legend []legendEntry) func(dc draw.Canvas) {
	return func(dc draw.Canvas) {
		if len(legend) > 0 {
			strip := dc
			strip.Max.Y = dc.Min.Y + vg.Points(22)
			dc.Min.Y = strip.Max.Y
			drawLegendRow(strip, legend)
		}
		panels(dc, title, plots)
	}
}

// addLine adds a line of xys to p unless it is empty.
func addLine(p *plot.Plot, xys plotter.XYs, c color.Color, width vg.Length, dashed bool) {
	if len(xys) == 0 {
		return
	}
	for i := range xys {
		xys[i].X, xys[i].Y = fin(xys[i].X), fin(xys[i].Y)
	}
	l, err := plotter.NewLine(xys)
	if err != nil {
		panic(err)
	}
	l.Color, l.Width = c, width
	if dashed {
		l.Dashes = dashes
	}
	p.Add(l)
}

// ---------------------------------------------------------------------------
// Timelines of hot lanes

// hotLanes are the lanes holding the most containers under the new policy
// (mean running jobs): where a running-job limit matters.
func hotLanes(o *Outputs) []string {
	_, new := runsOf(o.Summary)
	var lanes []Lane
	if new != nil {
		lanes = append(lanes, new.Lanes...)
	}
	sort.SliceStable(lanes, func(i, j int) bool {
		if lanes[i].MeanRunning != lanes[j].MeanRunning {
			return lanes[i].MeanRunning > lanes[j].MeanRunning
		}
		return lanes[i].ThroughputPerHour > lanes[j].ThroughputPerHour
	})
	var out []string
	for _, l := range lanes {
		if len(out) == max(FigureHotLanes, 0) {
			break
		}
		if l.MeanRunning > 0 || l.Completed > 0 || l.Started > 0 {
			out = append(out, l.Model)
		}
	}
	if len(out) == 0 && len(o.Series) > 0 {
		// No lane in the summary: fall back to the series.
		area := map[string]float64{}
		for _, r := range o.Series {
			area[r.Model] += float64(r.Running)
		}
		for m := range area {
			out = append(out, m)
		}
		sort.Slice(out, func(i, j int) bool {
			if area[out[i]] != area[out[j]] {
				return area[out[i]] > area[out[j]]
			}
			return out[i] < out[j]
		})
		out = out[:min(len(out), max(FigureHotLanes, 0))]
	}
	return out
}

// disturbances are those named in the runs' convergence tables (marked only
// where a limit had to settle), without the start of the run.
func disturbances(s Summary) []Disturbance {
	seen := map[Disturbance]bool{}
	var out []Disturbance
	for _, r := range s.Runs {
		for _, c := range r.Convergence {
			d := c.Disturbance
			if seen[d] || d.isStart() {
				continue
			}
			seen[d] = true
			out = append(out, d)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At < out[j].At })
	return out
}

type seriesKey struct{ policy, model string }

func indexSeries(o *Outputs) (map[seriesKey][]SeriesRecord, map[string][]float64) {
	by := map[seriesKey][]SeriesRecord{}
	times := map[string]map[float64]bool{}
	for _, r := range o.Series {
		k := seriesKey{r.Policy, r.Model}
		by[k] = append(by[k], r)
		if times[r.Policy] == nil {
			times[r.Policy] = map[float64]bool{}
		}
		times[r.Policy][r.T] = true
	}
	grid := map[string][]float64{}
	for p, ts := range times {
		g := make([]float64, 0, len(ts))
		for t := range ts {
			if !math.IsNaN(t) && !math.IsInf(t, 0) {
				g = append(g, t)
			}
		}
		sort.Float64s(g)
		grid[p] = g
	}
	for k := range by {
		rs := by[k]
		sort.SliceStable(rs, func(i, j int) bool { return rs[i].T < rs[j].T })
	}
	return by, grid
}

func timelineFigures(o *Outputs) []figSpec {
	hot := hotLanes(o)
	if len(hot) == 0 {
		return []figSpec{placeholder("timeline", "Running jobs, limit and gateway depth over time",
			"no lane had any job and series.csv has no row")}
	}
	by, grid := indexSeries(o)
	ds := disturbances(o.Summary)
	var figs []figSpec
	for _, m := range hot {
		figs = append(figs, timelineFigure(o, m, by, grid, ds))
	}
	return figs
}

func timelineFigure(o *Outputs, model string, by map[seriesKey][]SeriesRecord, grid map[string][]float64, ds []Disturbance) figSpec {
	name := "timeline-" + safeName(model)
	title := model + ": running jobs, running-job limit and gateway depth"
	s := o.Summary
	end := runEnd(o)
	scale, unit := timeUnit(end)
	pidx := policyIndex(s)
	pols := policies(o)
	top := newPlot("", "", "jobs holding a container")
	bottom := newPlot("", "time ("+unit+")", "gateway queue (calls)")
	newGrid(top, true, true)
	newGrid(bottom, true, true)
	var legend []legendEntry
	rows := 0
	for k, pol := range pols {
		ci := k
		if i, ok := pidx[pol]; ok {
			ci = i
		}
		c := policyColor(ci)
		width := vg.Points(1.4)
		if ci == 0 && len(pols) > 1 {
			width = vg.Points(1.1)
		}
		rs := by[seriesKey{pol, model}]
		rows += len(rs)
		// Rows exist only while a model has anything going on: a missing
		// sample is zero running and zero depth.
		at := map[float64]SeriesRecord{}
		for _, r := range rs {
			at[r.T] = r
		}
		var running, limit, depth plotter.XYs
		for _, t := range grid[pol] {
			r, ok := at[t]
			x := t / scale
			running = append(running, plotter.XY{X: x, Y: float64(r.Running)})
			depth = append(depth, plotter.XY{X: x, Y: float64(r.Depth)})
			if ok && r.Limit >= 0 {
				limit = append(limit, plotter.XY{X: x, Y: float64(r.Limit)})
			}
		}
		addLine(top, running, c, width, false)
		addLine(top, limit, darker(c), width, true)
		addLine(bottom, depth, c, width, false)
		label := pol
		if i, ok := pidx[pol]; ok {
			label = roleName(s, i)
		}
		legend = append(legend, legendEntry{label, lineThumb(c, vg.Points(3), false)})
	}
	legend = append(legend, legendEntry{"running jobs / gateway depth", lineThumb(grey, vg.Points(1.4), false)},
		legendEntry{"running-job limit (fixed-lane: its cap)", lineThumb(grey, vg.Points(1.4), true)})
	if rows == 0 {
		return placeholder(name, title, "series.csv has no row for "+model)
	}
	marks, bare := &vMarks{}, &vMarks{}
	if len(s.Runs) > 0 && s.Runs[0].Window[0] > 0 {
		marks.add(s.Runs[0].Window[0]/scale, "warm-up end", grey, true)
		bare.add(s.Runs[0].Window[0]/scale, "", grey, true)
	}
	var events []string
	for _, d := range ds {
		if d.Model != "" && d.Model != model {
			continue
		}
		c := grey
		if d.Model != "" {
			c = eventRed
		}
		marks.add(d.Seconds()/scale, d.Kind, c, false)
		bare.add(d.Seconds()/scale, "", c, false)
		events = append(events, fmt.Sprintf("%s at %s", d.Kind, formatClock(d.Seconds())))
	}
	top.Add(marks)
	bottom.Add(bare)
	for _, p := range []*plot.Plot{top, bottom} {
		timeAxis(&p.X, unit, end)
		p.Y.Min = 0
		p.Y.Max = max(p.Y.Max, 1)
	}
	top.X.Label.Text = ""
	// headroom for the disturbance labels
	top.Y.Max *= 1.12
	caption := fmt.Sprintf("%s, sampled every series interval: top, jobs holding a container (solid) and the policy's running-job limit "+
		"(dashed; for fixed-lane its fixed cap); bottom, calls queued at the gateway. ", model)
	if len(events) > 0 {
		caption += "Vertical lines mark " + strings.Join(events, ", ") + " (red: a capacity event on this model, grey: bursts of batches; " +
			"taken from the convergence table). "
	}
	caption += "Look for the limit rising until the gateway queue holds about the target depth, running jobs following the limit " +
		"while jobs wait, the limit falling after a slowdown and recovering after it, and no sustained oscillation. "
	caption += laneFacts(s, model)
	h := 6.2 * vg.Inch
	return figSpec{name: name, title: title, caption: caption, w: 10 * vg.Inch, h: h,
		draw: figureWithLegend(title, [][]*plot.Plot{{top}, {bottom}}, legend)}
}

// laneFacts states a lane's throughput and the scheduler's settled limits.
func laneFacts(s Summary, model string) string {
	var parts []string
	for i, r := range s.Runs {
		for _, l := range r.Lanes {
			if l.Model == model {
				parts = append(parts, fmt.Sprintf("%s: %.0f jobs/h, %.0f running on average", roleName(s, i), l.ThroughputPerHour, l.MeanRunning))
			}
		}
	}
	out := ""
	if len(parts) > 0 {
		out = strings.Join(parts, "; ") + ". "
	}
	for _, r := range s.Runs {
		var conv []string
		for _, c := range r.Convergence {
			if c.Model != model {
				continue
			}
			band := "never settled in band"
			if c.TimeToBand >= 0 {
				band = fmt.Sprintf("in band after %.0f s", c.TimeToBand)
			}
			conv = append(conv, fmt.Sprintf("%s → %.0f (%s)", c.Disturbance.Kind, c.Settled, band))
		}
		if len(conv) > 0 {
			out += fmt.Sprintf("Settled limit under %s after each disturbance: %s. ", r.Policy, strings.Join(conv, ", "))
		}
	}
	return strings.TrimSpace(out)
}

// formatClock formats seconds as 1h30m, 40m, 90s.
func formatClock(t float64) string {
	if math.IsNaN(t) || math.IsInf(t, 0) {
		return "?"
	}
	s := int64(math.Round(t))
	h, m, sec := s/3600, s%3600/60, s%60
	switch {
	case h > 0 && m == 0 && sec == 0:
		return fmt.Sprintf("%dh", h)
	case h > 0 && sec == 0:
		return fmt.Sprintf("%dh%02dm", h, m)
	case h > 0:
		return fmt.Sprintf("%dh%02dm%02ds", h, m, sec)
	case m > 0 && sec == 0:
		return fmt.Sprintf("%dm", m)
	case m > 0:
		return fmt.Sprintf("%dm%02ds", m, sec)
	}
	return fmt.Sprintf("%ds", sec)
}

// ---------------------------------------------------------------------------
// Fairness: batch progress, tier shares, Jain's index

type batchTrack struct {
	batch, model string
	large        bool
	first        float64 // first sample, any policy
	last         float64
	jobs         int32 // most jobs seen, any policy
	rows         map[string][]BatchRecord
}

func trackBatches(o *Outputs) map[string]*batchTrack {
	bs := map[string]*batchTrack{}
	for _, r := range o.Batches {
		if math.IsNaN(r.T) || math.IsInf(r.T, 0) {
			continue
		}
		b := bs[r.Batch]
		if b == nil {
			b = &batchTrack{batch: r.Batch, model: r.Model, first: r.T, last: r.T, rows: map[string][]BatchRecord{}}
			bs[r.Batch] = b
		}
		b.large = b.large || r.Class == "large"
		b.first, b.last = min(b.first, r.T), max(b.last, r.T)
		b.jobs = max(b.jobs, r.Jobs)
		b.rows[r.Policy] = append(b.rows[r.Policy], r)
	}
	for _, b := range bs {
		for _, rs := range b.rows {
			sort.SliceStable(rs, func(i, j int) bool { return rs[i].T < rs[j].T })
		}
	}
	return bs
}

// pickBatches picks the large batch with the most jobs that has a small
// batch behind it (same model, arrived after it), and that small batch,
// preferring one tracked under every policy, then the earliest.
func pickBatches(bs map[string]*batchTrack, npol int) (large, small *batchTrack) {
	var larges, smalls []*batchTrack
	for _, b := range bs {
		if b.large {
			larges = append(larges, b)
		} else {
			smalls = append(smalls, b)
		}
	}
	sort.Slice(larges, func(i, j int) bool {
		if larges[i].jobs != larges[j].jobs {
			return larges[i].jobs > larges[j].jobs
		}
		return larges[i].batch < larges[j].batch
	})
	sort.Slice(smalls, func(i, j int) bool {
		if smalls[i].first != smalls[j].first {
			return smalls[i].first < smalls[j].first
		}
		return smalls[i].batch < smalls[j].batch
	})
	for _, l := range larges {
		var best *batchTrack
		for _, s := range smalls {
			if s.model != l.model || s.first < l.first || s.first > l.last {
				continue
			}
			if best == nil || len(s.rows) > len(best.rows) {
				best = s
			}
			if len(best.rows) >= npol {
				break
			}
		}
		if best != nil {
			return l, best
		}
	}
	if len(larges) > 0 {
		return larges[0], nil
	}
	if len(smalls) > 0 {
		return nil, smalls[0]
	}
	return nil, nil
}

func batchFigure(o *Outputs) figSpec {
	const name = "batch-progress"
	title := "Fairness: a small batch behind a large one"
	bs := trackBatches(o)
	pols := policies(o)
	large, small := pickBatches(bs, len(pols))
	if large == nil && small == nil {
		return placeholder(name, title, "batches.csv has no large batch and no small batch behind one (no batch of more than 1000 jobs)")
	}
	end := runEnd(o)
	scale, unit := timeUnit(end)
	p := newPlot("", "time ("+unit+")", "fraction of the batch's jobs done")
	newGrid(p, true, true)
	pidx := policyIndex(o.Summary)
	var legend []legendEntry
	for k, pol := range pols {
		ci := k
		if i, ok := pidx[pol]; ok {
			ci = i
		}
		c := policyColor(ci)
		drawn := false
		for _, b := range []*batchTrack{large, small} {
			if b == nil {
				continue
			}
			var xys plotter.XYs
			for _, r := range b.rows[pol] {
				f := 0.0
				if r.Jobs > 0 {
					f = float64(r.Done) / float64(r.Jobs)
				}
				xys = append(xys, plotter.XY{X: r.T / scale, Y: f})
			}
			if len(xys) > 0 {
				drawn = true
			}
			addLine(p, xys, c, vg.Points(1.6), b == small && large != nil)
		}
		if drawn {
			label := pol
			if i, ok := pidx[pol]; ok {
				label = roleName(o.Summary, i)
			}
			legend = append(legend, legendEntry{label, lineThumb(c, vg.Points(3), false)})
		}
	}
	marks := &vMarks{}
	var desc []string
	if large != nil {
		legend = append(legend, legendEntry{fmt.Sprintf("large %s (%s, %d jobs)", large.batch, large.model, large.jobs), lineThumb(grey, vg.Points(1.6), false)})
		desc = append(desc, fmt.Sprintf("the large batch %s (%s, %d jobs, the largest tracked)", large.batch, large.model, large.jobs))
	}
	if small != nil {
		legend = append(legend, legendEntry{fmt.Sprintf("small %s (%d jobs)", small.batch, small.jobs), lineThumb(grey, vg.Points(1.6), large != nil)})
		marks.add(small.first/scale, "small batch arrives", grey, true)
		desc = append(desc, fmt.Sprintf("the small batch %s (%d jobs) that arrived at %s behind it on the same model", small.batch, small.jobs, formatClock(small.first)))
	}
	p.Add(marks)
	timeAxis(&p.X, unit, end)
	// start shortly before the batches: the rest of the run is empty here
	from := math.Inf(1)
	for _, b := range []*batchTrack{large, small} {
		if b != nil {
			from = min(from, b.first)
		}
	}
	if from < end {
		p.X.Min = max(0, from-0.05*(end-from)) / scale
	}
	p.Y.Min, p.Y.Max = 0, 1.02
	var ends []string
	for _, pol := range pols {
		for _, b := range []*batchTrack{large, small} {
			if b == nil || len(b.rows[pol]) == 0 {
				continue
			}
			rs := b.rows[pol]
			last := rs[len(rs)-1]
			if last.Done >= last.Jobs && last.Jobs > 0 {
				ends = append(ends, fmt.Sprintf("%s: %s done at %s", pol, b.batch, formatClock(last.T)))
			} else {
				ends = append(ends, fmt.Sprintf("%s: %s %d of %d done at the end", pol, b.batch, last.Done, last.Jobs))
			}
		}
	}
	caption := "Share of jobs done over time for " + strings.Join(desc, " and ") + ", under each policy (batches.csv; " +
		"the share is of the jobs arrived so far, so it can dip while a batch is still arriving). " +
		"Look for the small batch finishing soon after it arrives under the new policy instead of waiting for the large one to drain. " +
		strings.Join(ends, "; ") + "."
	return figSpec{name: name, title: title, caption: caption, w: 10 * vg.Inch, h: 4.8 * vg.Inch,
		draw: figureWithLegend(title, [][]*plot.Plot{{p}}, legend)}
}

var tierColors = []color.Color{okabeIto[4], okabeIto[2], okabeIto[5], okabeIto[3], okabeIto[6], okabeIto[7]}

func tierFigure(o *Outputs) figSpec {
	const name = "tier-shares"
	s := o.Summary
	title := "Fairness: share of admissions per tier, per " + windowLength(s) + " window"
	tierSet := map[string]bool{}
	nwin := 0
	for _, r := range s.Runs {
		for _, w := range r.Fairness.Windows {
			nwin++
			for t := range w.TierAdmitted {
				tierSet[t] = true
			}
		}
	}
	if len(tierSet) == 0 {
		return placeholder(name, "Tier shares over time", fmt.Sprintf("no fairness window with admissions (%d windows)", nwin))
	}
	tiers := make([]string, 0, len(tierSet))
	for t := range tierSet {
		tiers = append(tiers, t)
	}
	sort.Slice(tiers, func(i, j int) bool {
		if len(tiers[i]) != len(tiers[j]) {
			return len(tiers[i]) < len(tiers[j])
		}
		return tiers[i] < tiers[j]
	})
	end := runEnd(o)
	scale, unit := timeUnit(end)
	var row []*plot.Plot
	var caps []string
	for i, r := range s.Runs {
		p := newPlot(roleName(s, i), "time ("+unit+")", "share of jobs admitted")
		newGrid(p, true, true)
		for k, t := range tiers {
			var xys plotter.XYs
			for _, w := range r.Fairness.Windows {
				total := int64(0)
				for _, n := range w.TierAdmitted {
					total += n
				}
				if total == 0 {
					continue
				}
				xys = append(xys, plotter.XY{X: (w.Start + w.End) / 2 / scale, Y: float64(w.TierAdmitted[t]) / float64(total)})
			}
			addLine(p, xys, tierColors[k%len(tierColors)], vg.Points(1.6), false)
		}
		timeAxis(&p.X, unit, end)
		p.Y.Min, p.Y.Max = 0, 1
		row = append(row, p)
		caps = append(caps, fmt.Sprintf("%s overall %s", r.Policy, FormatTierShares(r.Fairness.TierShares)))
	}
	var legend []legendEntry
	for k, t := range tiers {
		label := "tier " + t
		if k == 0 {
			label += " (highest)"
		}
		legend = append(legend, legendEntry{label, lineThumb(tierColors[k%len(tierColors)], vg.Points(3), false)})
	}
	caption := "Share of the jobs admitted in each fairness window that belong to each tier (the window's midpoint on the x axis), " +
		"one panel per policy. Tier 1 is the highest. Look for higher tiers getting a larger share when the platform is " +
		"congested (after bursts) under the scheduler, and lower tiers not starved to zero for long. " + strings.Join(caps, "; ") + "."
	return figSpec{name: name, title: title, caption: caption, w: 10 * vg.Inch, h: 4.2 * vg.Inch,
		draw: figureWithLegend(title, [][]*plot.Plot{row}, legend)}
}

// FormatTierShares prints tier shares as "tier 1 10%, tier 2 24%, ...".
func FormatTierShares(m map[string]float64) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("tier %s %.0f%%", k, 100*fin(m[k])))
	}
	if len(parts) == 0 {
		return "(none)"
	}
	return strings.Join(parts, ", ")
}

func jainFigure(o *Outputs) figSpec {
	const name = "fairness-jain"
	title := "Fairness: Jain's index over backlogged projects, per window"
	s := o.Summary
	end := runEnd(o)
	scale, unit := timeUnit(end)
	p := newPlot("", "time ("+unit+")", "Jain's index (1 = equal shares)")
	newGrid(p, true, true)
	var legend []legendEntry
	var caps []string
	points := 0
	for i, r := range s.Runs {
		// Lines join consecutive windows only: a gap is a window with
		// fewer than two backlogged projects.
		var xys, seg plotter.XYs
		prevEnd := math.NaN()
		for _, w := range r.Fairness.Windows {
			if w.Backlogged < 2 {
				continue
			}
			pt := plotter.XY{X: (w.Start + w.End) / 2 / scale, Y: w.Jain}
			if len(seg) > 0 && w.Start != prevEnd {
				addLine(p, seg, policyColor(i), vg.Points(1.6), false)
				seg = nil
			}
			seg = append(seg, pt)
			xys = append(xys, pt)
			prevEnd = w.End
		}
		addLine(p, seg, policyColor(i), vg.Points(1.6), false)
		points += len(xys)
		if len(xys) > 0 {
			sc, err := plotter.NewScatter(xys)
			if err != nil {
				panic(err)
			}
			sc.Color = policyColor(i)
			sc.Shape = draw.CircleGlyph{}
			sc.Radius = vg.Points(2.5)
			p.Add(sc)
		}
		legend = append(legend, legendEntry{roleName(s, i), lineThumb(policyColor(i), vg.Points(3), false)})
		caps = append(caps, fmt.Sprintf("%s mean %.2f", r.Policy, r.Fairness.JainMean))
	}
	if points == 0 {
		return placeholder(name, "Jain's index over time", "no fairness window had two or more backlogged projects")
	}
	timeAxis(&p.X, unit, end)
	p.Y.Min, p.Y.Max = 0, 1.02
	caption := "Jain's fairness index of the jobs admitted per project in each window, over the projects that had jobs waiting " +
		"through the whole window (windows with fewer than two such projects are left out). 1 means every backlogged project got " +
		"the same number of admissions; 1/n means one took everything. Look for the new policy staying well above the old one. " +
		strings.Join(caps, ", ") + "."
	return figSpec{name: name, title: title, caption: caption, w: 10 * vg.Inch, h: 4 * vg.Inch,
		draw: figureWithLegend(title, [][]*plot.Plot{{p}}, legend)}
}

// windowLength is the typical length of the fairness windows, e.g. "10-minute".
func windowLength(s Summary) string {
	var ls []float64
	for _, r := range s.Runs {
		for _, w := range r.Fairness.Windows {
			if d := w.End - w.Start; d > 0 {
				ls = append(ls, d)
			}
		}
	}
	if len(ls) == 0 {
		return "fairness"
	}
	sort.Float64s(ls)
	d := ls[len(ls)/2]
	switch {
	case d >= 3600 && math.Mod(d, 3600) == 0:
		return fmt.Sprintf("%.0f-hour", d/3600)
	case d >= 60 && math.Mod(d, 60) == 0:
		return fmt.Sprintf("%.0f-minute", d/60)
	}
	return fmt.Sprintf("%.0f-second", d)
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

// darker is c at 60% brightness, for a second line of the same series.
func darker(c color.Color) color.Color {
	r, g, b, _ := c.RGBA()
	return color.RGBA{R: uint8(r >> 8 * 6 / 10), G: uint8(g >> 8 * 6 / 10), B: uint8(b >> 8 * 6 / 10), A: 255}
}
