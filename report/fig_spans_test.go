package report

import (
	"fmt"
	"image/color"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// paintOf draws a figure on a layoutCanvas and returns it.
func paintOf(spec figSpec) *layoutCanvas {
	lc := &layoutCanvas{Canvas: nullCanvas{}}
	spec.draw(draw.Canvas{Canvas: lc, Rectangle: vg.Rectangle{Max: vg.Point{X: spec.w, Y: spec.h}}})
	return lc
}

// isLineFigure says whether a figure's data are lines over time, one (or
// two) per run.
func isLineFigure(name string) bool {
	return strings.HasPrefix(name, "timeline-") || strings.HasSuffix(name, "-over-time") || name == "batch-progress"
}

// isDataLine says whether a recorded stroke is a data line: at least a
// point wide (axes, ticks and grid lines are thinner), in a run's colour
// or its darker shade, and not dotted like the event marks.
func isDataLine(op paintOp) bool {
	if op.fill || op.width < vg.Points(1) || slices.Equal(op.dashes, markDashes) {
		return false
	}
	for i := range runColors {
		if sameColor(op.col, policyColor(i)) || sameColor(op.col, darker(policyColor(i))) {
			return true
		}
	}
	return false
}

func sameColor(a, b color.Color) bool {
	r1, g1, b1, a1 := a.RGBA()
	r2, g2, b2, a2 := b.RGBA()
	return r1 == r2 && g1 == g2 && b1 == b2 && a1 == a2
}

// pathBox is the bounding box of a path's points (arcs and curves by their
// end points: the figures fill rectangles).
func pathBox(p vg.Path) vg.Rectangle {
	var r vg.Rectangle
	for i, c := range p {
		if c.Type == vg.CloseComp {
			continue
		}
		if i == 0 {
			r = vg.Rectangle{Min: c.Pos, Max: c.Pos}
			continue
		}
		r.Min.X, r.Min.Y = min(r.Min.X, c.Pos.X), min(r.Min.Y, c.Pos.Y)
		r.Max.X, r.Max.Y = max(r.Max.X, c.Pos.X), max(r.Max.Y, c.Pos.Y)
	}
	return r
}

// segments are the boxes of a stroked path's straight pieces, widened by
// half the line's width.
func segments(op paintOp) []vg.Rectangle {
	var out []vg.Rectangle
	h := op.width / 2
	for i := 1; i < len(op.path); i++ {
		if op.path[i].Type != vg.LineComp {
			continue
		}
		a, b := op.path[i-1].Pos, op.path[i].Pos
		out = append(out, vg.Rectangle{Min: vg.Point{X: min(a.X, b.X) - h, Y: min(a.Y, b.Y) - h}, Max: vg.Point{X: max(a.X, b.X) + h, Y: max(a.Y, b.Y) + h}})
	}
	return out
}

// contains says whether outer holds inner, to a hundredth of a point.
func contains(outer, inner vg.Rectangle) bool {
	const e = 0.01
	return outer.Min.X <= inner.Min.X+e && outer.Min.Y <= inner.Min.Y+e && outer.Max.X >= inner.Max.X-e && outer.Max.Y >= inner.Max.Y-e
}

// hidesUnder says whether a fill under a line can hide it: one more than
// lightly tinted and not white (a label's box), since a line over a block
// of its own colour vanishes.
func hidesUnder(c color.Color) bool {
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	white := n.R >= 0xF0 && n.G >= 0xF0 && n.B >= 0xF0
	return n.A > lightFill && !white
}

// lightFill is the most opaque a shape drawn under a data line may be.
const lightFill = 0x40

// spansOverLines lists the fills in a data area of a line figure that hide
// part of a data line: drawn after it, or under it but more than lightly
// tinted and not white (a line over a block of its own colour vanishes). The plot's
// background (a fill holding the whole data area) is not one.
func spansOverLines(lc *layoutCanvas) []string {
	var bad []string
	for _, d := range lc.data {
		type seg struct {
			at  int
			box vg.Rectangle
		}
		var lines []seg
		for i, op := range lc.paint {
			if !isDataLine(op) {
				continue
			}
			for _, b := range segments(op) {
				if overlaps(b, d) {
					lines = append(lines, seg{i, b})
				}
			}
		}
		for i, op := range lc.paint {
			if !op.fill {
				continue
			}
			box := pathBox(op.path)
			if !overlaps(box, d) || contains(box, d) {
				continue
			}
			a := color.NRGBAModel.Convert(op.col).(color.NRGBA).A
			for _, l := range lines {
				if !overlaps(box, l.box) {
					continue
				}
				if i > l.at || hidesUnder(op.col) {
					bad = append(bad, fmt.Sprintf("fill %v (alpha %#x, drawn %s the line) over the line piece %v in the data area %v",
						box, a, map[bool]string{true: "after", false: "before"}[i > l.at], l.box, d))
					break
				}
			}
		}
	}
	return bad
}

// TestSpansOffTheLines: in every line figure of reports of 1 to 17 runs,
// each with a quota alert over most of the run, no shape drawn in a data
// area hides a data line: nothing is drawn over a line, and nothing under
// one is more than a light tint.
func TestSpansOffTheLines(t *testing.T) {
	for _, n := range []int{1, 2, 5, 10, 14, 17} {
		t.Run(fmt.Sprint(n, " runs"), func(t *testing.T) {
			checked := 0
			for _, spec := range figureSpecs(manyRuns(t, n)) {
				if !isLineFigure(spec.name) {
					continue
				}
				checked++
				if bad := spansOverLines(paintOf(spec)); len(bad) > 0 {
					t.Errorf("%s: %d shapes hide data lines, the first: %s", spec.name, len(bad), bad[0])
				}
			}
			if checked == 0 {
				t.Fatal("no line figure drawn")
			}
		})
	}
}

// TestSpansOffTheLinesCatches: the check fails on an opaque span drawn
// after a line and on one drawn under it, and passes a light tint under
// the line.
func TestSpansOffTheLinesCatches(t *testing.T) {
	d := vg.Rectangle{Min: vg.Point{X: 0, Y: 0}, Max: vg.Point{X: 100, Y: 100}}
	var line vg.Path
	line.Move(vg.Point{X: 0, Y: 50})
	line.Line(vg.Point{X: 100, Y: 50})
	span := vg.Rectangle{Min: vg.Point{X: 20, Y: 40}, Max: vg.Point{X: 40, Y: 60}}.Path()
	lineOp := paintOp{path: line, col: policyColor(3), width: vg.Points(1.4)}
	tint := color.NRGBA{R: 200, A: 0x30}
	for _, tc := range []struct {
		name string
		ops  []paintOp
		want int
	}{
		{"opaque after", []paintOp{lineOp, {fill: true, path: span, col: policyColor(3)}}, 1},
		{"opaque under", []paintOp{{fill: true, path: span, col: policyColor(3)}, lineOp}, 1},
		{"tint after", []paintOp{lineOp, {fill: true, path: span, col: tint}}, 1},
		{"tint under", []paintOp{{fill: true, path: span, col: tint}, lineOp}, 0},
		{"white under", []paintOp{{fill: true, path: span, col: color.NRGBA{R: 255, G: 255, B: 255, A: 210}}, lineOp}, 0},
		{"white after", []paintOp{lineOp, {fill: true, path: span, col: color.NRGBA{R: 255, G: 255, B: 255, A: 210}}}, 1},
		{"background", []paintOp{{fill: true, path: vg.Rectangle{Max: vg.Point{X: 200, Y: 200}}.Path(), col: color.White}, lineOp}, 0},
	} {
		lc := &layoutCanvas{data: []vg.Rectangle{d}, paint: tc.ops}
		if got := len(spansOverLines(lc)); got != tc.want {
			t.Errorf("%s: %d shapes found over the line, want %d", tc.name, got, tc.want)
		}
	}
}

// TestRunsTellApart: every figure of a line per run, for 1 to 17 runs,
// has an entry for each run, a panel title or a legend entry of its name,
// and the legend entries of runs differ in colour or dashes.
func TestRunsTellApart(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4, 5, 10, 14, 17} {
		t.Run(fmt.Sprint(n, " runs"), func(t *testing.T) {
			in := manyRuns(t, n)
			var names []string
			for i := range in.Summary.Runs {
				names = append(names, roleName(in.Summary, i))
			}
			checked := 0
			for _, spec := range figureSpecs(in) {
				if !isLineFigure(spec.name) || strings.HasPrefix(spec.caption, "Not drawn") {
					continue
				}
				checked++
				lc := paintOf(spec)
				styles := map[string]string{} // style → the run drawn in it
				for _, name := range names {
					found := false
					for _, e := range lc.entries {
						if e.name != name {
							continue
						}
						found = true
						if e.style == "" {
							continue
						}
						if other, ok := styles[e.style]; ok && other != name {
							t.Errorf("%s: %s and %s have the same line in the legend", spec.name, other, name)
						}
						styles[e.style] = name
					}
					if !found {
						t.Errorf("%s: no entry for the run %s (entries %v)", spec.name, name, lc.entries)
					}
				}
			}
			if checked == 0 {
				t.Fatal("no line figure drawn")
			}
		})
	}
}
