package report

import (
	"reflect"
	"strings"
	"testing"

	"github.com/evalsched/lab/results"
)

func TestAlertSpansOnTheAffectedModel(t *testing.T) {
	// Two runs; acme bills model a's evaluation calls, other bills b's; one
	// episode from a summary that did not name models.
	s := results.Summary{Runs: []results.Run{
		{Policy: "no-guard", Alerts: []results.AlertEpisode{
			{Start: 1170, End: 10800, Key: "acme", Dimension: "tpd", PeakShare: 0.82, Models: []string{"a"}},
			{Start: 60, End: 120, Key: "other", Dimension: "tpm", PeakShare: 0.9, Models: []string{"b"}},
		}},
		{Policy: "breaker", Alerts: []results.AlertEpisode{
			{Start: 920, End: 930, Key: "acme", Dimension: "tpm", PeakShare: 0.71},
		}},
	}}
	cases := []struct {
		model string
		want  []alertSpan
	}{
		{"a", []alertSpan{
			{pol: "no-guard", label: "no-guard (old)", color: 0, start: 1170, end: 10800, key: "acme", dim: "tpd", peak: 0.82},
			{pol: "breaker", label: "breaker (new)", color: 1, start: 920, end: 930, key: "acme", dim: "tpm", peak: 0.71},
		}},
		{"b", []alertSpan{
			{pol: "no-guard", label: "no-guard (old)", color: 0, start: 60, end: 120, key: "other", dim: "tpm", peak: 0.9},
			{pol: "breaker", label: "breaker (new)", color: 1, start: 920, end: 930, key: "acme", dim: "tpm", peak: 0.71},
		}},
		{"c", []alertSpan{{pol: "breaker", label: "breaker (new)", color: 1, start: 920, end: 930, key: "acme", dim: "tpm", peak: 0.71}}},
	}
	for _, c := range cases {
		t.Run(c.model, func(t *testing.T) {
			if got := alertSpans(s, c.model); !reflect.DeepEqual(got, c.want) {
				t.Errorf("spans %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestTimelineDrawsAlertSpans(t *testing.T) {
	var series []results.SeriesRecord
	for _, m := range []string{"a", "b"} {
		for i := range 10 {
			series = append(series, results.SeriesRecord{Policy: "p", Model: m, T: float64(i * 60), Running: 3, Limit: 5, Depth: 1})
		}
	}
	ep := results.AlertEpisode{Start: 120, End: 300, Key: "acme", Dimension: "tpd", PeakShare: 0.8, Models: []string{"a"}}
	o := &results.Outputs{Series: series, Summary: results.Summary{Runs: []results.Run{{Policy: "p", Alerts: []results.AlertEpisode{ep},
		Lanes: []results.Lane{{Model: "a", MeanRunning: 3}, {Model: "b", MeanRunning: 2}}}}}}
	figs, err := timelineFigures(&input{Outputs: o})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		want    bool
		episode string
	}{
		{"timeline-a", true, "p: acme tpd 2m–5m (peak 80%)"},
		{"timeline-b", false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var cap string
			found := false
			for _, f := range figs {
				if f.name == c.name {
					cap, found = f.caption, true
				}
			}
			if !found {
				t.Fatalf("no figure %s", c.name)
			}
			if got := strings.Contains(cap, "quota alert episodes"); got != c.want {
				t.Errorf("caption mentions alert spans = %v, want %v: %s", got, c.want, cap)
			}
			if c.want && !strings.Contains(cap, c.episode) {
				t.Errorf("caption %q lacks the episode %q", cap, c.episode)
			}
		})
	}
}
