package report

import (
	"bytes"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/evalsched/lab/results"
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
	o, err := results.LoadOutputs(dir)
	if err != nil {
		return nil, err
	}
	return writeFigures(&input{Outputs: o}, out, true)
}

// WriteFiguresFrom is WriteFigures on outputs already loaded.
func WriteFiguresFrom(o *results.Outputs, out string) ([]Figure, error) {
	return writeFigures(&input{Outputs: o}, out, false)
}

// writeFigures prepares every figure, then draws them. With dropRows the
// series and batch rows are let go once the figures are prepared (they hold
// their own data): drawing a week's figures makes gigabytes of short-lived
// garbage, and the collector lets the heap grow in proportion to what is
// live, so the rows would double the peak. The figures are drawn on as many
// goroutines as there are cores (each draws from its own prepared data) and
// written in report order.
func writeFigures(o *input, out string, dropRows bool) ([]Figure, error) {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	specs := figureSpecs(o)
	if dropRows {
		o.DropRows()
	}
	drawn := renderAll(specs, runtime.GOMAXPROCS(0))
	var figs []Figure
	for i, spec := range specs {
		d := drawn[i]
		if d.err != nil {
			return figs, fmt.Errorf("figure %s: %w", spec.name, d.err)
		}
		f := Figure{Name: d.spec.name, Title: d.spec.title, Caption: d.spec.caption,
			PNG: filepath.Join(out, d.spec.name+".png"), SVG: filepath.Join(out, d.spec.name+".svg")}
		if err := results.WriteFileAtomic(f.PNG, d.png); err != nil {
			return figs, err
		}
		if err := results.WriteFileAtomic(f.SVG, d.svg); err != nil {
			return figs, err
		}
		figs = append(figs, f)
	}
	return figs, nil
}

// drawnFigure is a figure drawn by renderAll: the spec it was drawn from
// (a placeholder if the figure's own could not be drawn) and its files.
type drawnFigure struct {
	spec     figSpec
	png, svg []byte
	err      error
}

// renderAll draws specs on up to workers goroutines, each taking the next
// figure not yet drawn; the result is in the order of specs.
func renderAll(specs []figSpec, workers int) []drawnFigure {
	drawn := make([]drawnFigure, len(specs))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range max(1, min(workers, len(specs))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(specs); i = int(next.Add(1) - 1) {
				drawn[i] = renderOrPlaceholder(specs[i])
			}
		}()
	}
	wg.Wait()
	return drawn
}

// renderOrPlaceholder draws a figure; never lose a figure to a plotting
// library error: a figure that cannot be drawn becomes a panel that says so.
func renderOrPlaceholder(spec figSpec) drawnFigure {
	png, svg, err := render(spec)
	if err != nil {
		spec = placeholder(spec.name, spec.title, "could not be drawn: "+err.Error())
		png, svg, err = render(spec)
	}
	return drawnFigure{spec: spec, png: png, svg: svg, err: err}
}

// figSpec is a figure to draw: draw is called once per output format.
type figSpec struct {
	name, title, caption string
	w, h                 vg.Length
	draw                 func(dc draw.Canvas)
}

// figureGroups are the figure builders in report order; name titles the
// placeholder that stands in for a builder's figures when it fails.
func figureGroups() []struct {
	name  string
	build func(*input) ([]figSpec, error)
} {
	return []struct {
		name  string
		build func(*input) ([]figSpec, error)
	}{
		{"production-outage", outageFigures}, // the point of a scenario with production traffic: first
		{"tradeoff", tradeoffFigures},
		{"throughput", one(throughputFigure)},
		{"job-time-split", one(splitFigure)},
		{"timeline", timelineFigures},
		{"batch-progress", one(batchFigure)},
		{"tier-shares", one(tierFigure)},
		{"fairness-jain", one(jainFigure)},
		{"rejections-429", rejectionFigures},
	}
}

// one adapts a builder of a single figure to a figure group.
func one(build func(*input) (figSpec, error)) func(*input) ([]figSpec, error) {
	return func(o *input) ([]figSpec, error) {
		f, err := build(o)
		if err != nil {
			return nil, err
		}
		return []figSpec{f}, nil
	}
}

// figureSpecs lists the figures of an output directory, in report order.
func figureSpecs(o *input) []figSpec {
	var out []figSpec
	for _, g := range figureGroups() {
		fs, err := prepare(g.build, o)
		if err != nil {
			fs = []figSpec{placeholder(g.name, g.name, "could not be prepared: "+err.Error())}
		}
		out = append(out, fs...)
	}
	if note, ok := oneSeedNote(o.Summary); ok {
		for i := range out {
			out[i] = namesItsSeed(out[i], note)
		}
	}
	return out
}

// oneSeedNote is how a figure drawn from the first seed's runs names that
// seed when the output holds several ("seed 1 of seeds 1–4"); ok is false
// with one seed, where there is nothing to tell apart.
func oneSeedNote(s results.Summary) (string, bool) {
	if len(s.Seeds) < 2 {
		return "", false
	}
	return fmt.Sprintf("seed %d of seeds %d–%d", s.Seed, s.Seeds[0], s.Seeds[len(s.Seeds)-1]), true
}

// seedBannerH is the strip above a figure that names the seed it shows.
const seedBannerH = 22 // points

// namesItsSeed makes a figure drawn from one seed of several say so: in its
// title and caption, and on the image itself (a strip above the figure), so
// that a PNG taken out of the report still tells which seed it is (the
// figures draw the first seed's runs and series; only the verdict and the
// "Multiplier across seeds" table aggregate the seeds).
func namesItsSeed(spec figSpec, note string) figSpec {
	spec.title += " (" + note + ")"
	spec.caption = fmt.Sprintf("One seed shown: %s; the verdict and the table \"Multiplier across seeds\" give the multipliers over all of them. %s",
		note, spec.caption)
	inner, banner := spec.draw, vg.Points(seedBannerH)
	text := "Shown: " + note + " (multipliers over all seeds: the report's verdict)"
	spec.h += banner
	spec.draw = func(dc draw.Canvas) {
		st := textStyle(11)
		st.Color = grey
		st.XAlign, st.YAlign = draw.XLeft, draw.YCenter
		dc.FillText(st, vg.Point{X: dc.Min.X + vg.Points(8), Y: dc.Max.Y - banner/2}, text)
		dc.Max.Y -= banner
		inner(dc)
	}
	return spec
}

// prepare runs a figure builder.
func prepare(build func(*input) ([]figSpec, error), o *input) (fs []figSpec, err error) {
	defer libraryPanic(&err)
	return build(o)
}

// libraryPanic, deferred, turns a panic into *err. The builders return
// their errors; this only guards against the plotting library, which panics
// on some degenerate input, so that such a figure still becomes a
// placeholder.
func libraryPanic(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("%v", r)
	}
}

// render draws a figure as PNG and SVG.
func render(s figSpec) (png, svg []byte, err error) {
	defer libraryPanic(&err)
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
