package report

import (
	"strings"
	"testing"

	"github.com/evalsched/lab/results"
	"github.com/google/go-cmp/cmp"
)

// TestHotLanesSurviveDroppedRows: a summary without lanes falls back to the
// series for its hot lanes (the most running jobs over time); a report lets
// the rows go once its figures are prepared, and the verdict read after
// must still find the same lanes, busiest first.
func TestHotLanesSurviveDroppedRows(t *testing.T) {
	o := &results.Outputs{Summary: results.Summary{Schema: "evalsched-summary", Runs: []results.Run{{Policy: "fixed-lane"}, {Policy: "scheduler"}}}}
	for i := range 10 {
		o.Series = append(o.Series,
			results.SeriesRecord{Policy: "scheduler", Model: "quiet", T: float64(60 * i), Running: 1, Limit: -1},
			results.SeriesRecord{Policy: "scheduler", Model: "busy", T: float64(60 * i), Running: 7, Limit: -1})
	}
	want := []string{"busy", "quiet"}
	in := &input{Outputs: o}
	figs, err := writeFigures(in, t.TempDir(), true)
	if err != nil {
		t.Fatal(err)
	}
	if o.Series != nil {
		t.Fatal("the rows were kept: the test checks nothing")
	}
	if diff := cmp.Diff(want, hotLanes(in)); diff != "" {
		t.Errorf("hot lanes after the rows were dropped (-want +got):\n%s", diff)
	}
	var timelines []string
	for _, f := range figs {
		if strings.HasPrefix(f.Name, "timeline-") {
			timelines = append(timelines, strings.TrimPrefix(f.Name, "timeline-"))
		}
	}
	if diff := cmp.Diff(want, timelines); diff != "" {
		t.Errorf("timeline figures (-want +got):\n%s", diff)
	}
}
