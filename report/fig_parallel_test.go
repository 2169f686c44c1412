package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/evalsched/lab/results"
	"gonum.org/v1/plot/vg/draw"
)

// TestRenderAllInOrder: figures drawn on several goroutines come back in
// the order asked, each byte for byte as drawn alone, and one whose drawing
// panics becomes its placeholder in its own place.
func TestRenderAllInOrder(t *testing.T) {
	o := &results.Outputs{Summary: results.Summary{Schema: "evalsched-summary", Runs: []results.Run{{Policy: "fixed-lane"}, {Policy: "scheduler"}}}}
	for i := range 30 {
		for _, p := range []string{"fixed-lane", "scheduler"} {
			o.Series = append(o.Series,
				results.SeriesRecord{Policy: p, Model: "a", T: float64(60 * i), Running: int32(i % 7), Limit: -1},
				results.SeriesRecord{Policy: p, Model: "b", T: float64(60 * i), Running: int32(i % 3), Limit: -1})
		}
	}
	specs := figureSpecs(&input{Outputs: o})
	broken := placeholder("broken", "broken", "x")
	broken.draw = func(draw.Canvas) { panic("the plotting library gave up") }
	specs = append(specs[:2:2], append([]figSpec{broken}, specs[2:]...)...)
	if len(specs) < 4 {
		t.Fatalf("only %d figures: the test checks little", len(specs))
	}
	for _, workers := range []int{1, 2, 5, 64} {
		drawn := renderAll(specs, workers)
		if len(drawn) != len(specs) {
			t.Fatalf("%d workers: %d figures back, want %d", workers, len(drawn), len(specs))
		}
		for i, s := range specs {
			d := drawn[i]
			if d.err != nil || d.spec.name != s.name {
				t.Fatalf("%d workers, figure %d: got %q (err %v), want %q", workers, i, d.spec.name, d.err, s.name)
			}
			if s.name == "broken" {
				if !strings.Contains(d.spec.caption, "could not be drawn: the plotting library gave up") {
					t.Errorf("%d workers: the broken figure's caption is %q", workers, d.spec.caption)
				}
				continue
			}
			png, svg, err := render(s)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(png, d.png) || !bytes.Equal(svg, d.svg) {
				t.Errorf("%d workers: figure %s differs from the same figure drawn alone", workers, s.name)
			}
		}
	}
}
