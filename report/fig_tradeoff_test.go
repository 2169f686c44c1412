package report

import (
	"strings"
	"testing"

	"github.com/evalsched/lab/results"
	"github.com/google/go-cmp/cmp"
)

// TestTradeoffRuns: the efficient runs of a hand-made incident, read off
// by hand, the reading that names them, and no figure without two runs of
// production traffic.
func TestTradeoffRuns(t *testing.T) {
	run := func(name string, perHour float64, prod429 ...int64) results.Run {
		r := results.Run{Policy: name, Total: results.Lane{ThroughputPerHour: perHour}}
		for _, n := range prod429 {
			r.Production = append(r.Production, results.ProductionStats{Name: "p", Rejected429: n})
		}
		return r
	}
	s := results.Summary{Runs: []results.Run{
		run("no-guard", 140, 600, 30), // 630: beaten by fixed-reset (more throughput, fewer 429s)
		run("separate-org", 167, 0),   // the most throughput of the runs with no 429: efficient
		run("circuit-breaker", 100, 0),
		run("fixed-reset", 319, 597), // the most throughput: efficient
		run("fit-admission", 136, 41),
		run("same-as-org", 167, 0), // ties separate-org: efficient too
		run("no-production", 500),  // no production stream: not on the figure
	}, Variants: []results.VariantComparison{{}}}
	var got []string
	for _, r := range tradeoffRuns(s) {
		if r.efficient {
			got = append(got, r.name)
		}
	}
	if diff := cmp.Diff([]string{"separate-org", "fixed-reset", "same-as-org"}, got); diff != "" {
		t.Errorf("efficient runs (-want +got):\n%s", diff)
	}
	reading := tradeoffReading(tradeoffRuns(s))
	for _, w := range []string{"fixed-reset (319 jobs/h, 597 production 429s), separate-org (167 jobs/h, 0 production 429s), same-as-org", "3 of 6 runs"} {
		if !strings.Contains(reading, w) {
			t.Errorf("reading %q lacks %q", reading, w)
		}
	}
	s.Runs = s.Runs[:1]
	if figs, err := tradeoffFigures(&input{Outputs: &results.Outputs{Summary: s}}); err != nil || len(figs) != 0 {
		t.Errorf("one run with production: %d figures, %v; want none", len(figs), err)
	}
}
