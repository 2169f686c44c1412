package report

import (
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// extremeLine is a plotter.Line that reports glyph boxes only for its
// points at (or within a hair of) its least and greatest x and y.
//
// plot.Plot asks every plotter for a glyph box per point and pads the data
// area by the left-, right-, bottom- and top-most of them, so that no glyph
// is clipped (padX, padY: the first box at the extreme coordinate wins,
// and only its position along that axis and its size are read). A line's
// boxes all have the line's width, so the boxes at its extreme coordinates
// decide the padding. Of the points at an extreme, one per value is kept
// (points of one value give the same box along that axis); points within
// 1e-9 (normalised) of an extreme are kept too, in their order, so that two
// values the canvas cannot tell apart are chosen between as before. The
// figures are byte-identical; what goes is a box per point — on a week's
// timelines (10,080 points a line, dozens of lines) most of what `sim
// report` allocated.
type extremeLine struct{ *plotter.Line }

// nearExtreme is how close (in normalised axis units) a point must be to an
// extreme to keep its box: far below a canvas unit, far above rounding.
const nearExtreme = 1e-9

// GlyphBoxes implements plot.GlyphBoxer.
func (l extremeLine) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	r := 0.5 * l.LineStyle.Width
	if r <= 0 {
		return nil // sizeless boxes never pad
	}
	// The boxes plot.Plot keeps: inside both axes' ranges.
	inside := func(x, y float64) bool { return x >= 0 && x <= 1 && y >= 0 && y <= 1 }
	minX, maxX, minY, maxY := 2.0, -1.0, 2.0, -1.0
	for i := range l.XYs.Len() {
		x, y := l.XY(i)
		nx, ny := p.X.Norm(x), p.Y.Norm(y)
		if !inside(nx, ny) {
			continue
		}
		minX, maxX, minY, maxY = min(minX, nx), max(maxX, nx), min(minY, ny), max(maxY, ny)
	}
	rect := vg.Rectangle{Min: vg.Point{X: -r, Y: -r}, Max: vg.Point{X: r, Y: r}}
	// For each extreme, the first point of each value near it: points of
	// one value give the same box along that axis, and the first of them
	// is the one padX or padY would pick.
	var seen [4][]float64
	first := func(k int, v float64) bool {
		for _, w := range seen[k] {
			if w == v {
				return false
			}
		}
		seen[k] = append(seen[k], v)
		return true
	}
	var boxes []plot.GlyphBox
	for i := range l.XYs.Len() {
		x, y := l.XY(i)
		nx, ny := p.X.Norm(x), p.Y.Norm(y)
		if !inside(nx, ny) {
			continue
		}
		near := [4]bool{nx <= minX+nearExtreme, nx >= maxX-nearExtreme, ny <= minY+nearExtreme, ny >= maxY-nearExtreme}
		along := [4]float64{nx, nx, ny, ny} // the coordinate each extreme is read on
		keep := false
		for k := range near {
			if near[k] && first(k, along[k]) {
				keep = true
			}
		}
		if keep {
			boxes = append(boxes, plot.GlyphBox{X: nx, Y: ny, Rectangle: rect})
		}
	}
	return boxes
}
