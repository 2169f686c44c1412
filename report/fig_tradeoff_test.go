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
	runs, harm := tradeoffRuns(s)
	if harm != harm429 {
		t.Errorf("harm %v with no failed production call, want 429s", harm)
	}
	var got []string
	for _, r := range runs {
		if r.efficient {
			got = append(got, r.name)
		}
	}
	if diff := cmp.Diff([]string{"separate-org", "fixed-reset", "same-as-org"}, got); diff != "" {
		t.Errorf("efficient runs (-want +got):\n%s", diff)
	}
	reading := tradeoffReading(runs, harm)
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

// TestTradeoffFailedCalls: once a production call failed in any run, the
// figure counts failed calls, not 429s, and its front moves with them: a
// run with many 429s that all got answered is efficient, one with few
// 429s but failures is not. Read off by hand.
func TestTradeoffFailedCalls(t *testing.T) {
	run := func(name string, perHour float64, rejected, failed int64) results.Run {
		return results.Run{Policy: name, Total: results.Lane{ThroughputPerHour: perHour},
			Production: []results.ProductionStats{{Name: "p", Rejected429: rejected, Failed: failed}}}
	}
	s := results.Summary{Runs: []results.Run{
		run("breaker", 100, 0, 0),            // the baseline; dominated by retries-answered (less throughput, as few failures)
		run("retries-answered", 300, 900, 0), // most 429s, none failed, most throughput: efficient on failures
		run("few-429s", 200, 10, 5),          // fewer 429s but 5 failed: beaten by retries-answered
	}, Variants: []results.VariantComparison{{}}}
	runs, harm := tradeoffRuns(s)
	if harm != harmFailed {
		t.Fatalf("harm %v with a failed production call, want failed calls", harm)
	}
	var got []string
	for _, r := range runs {
		if r.efficient {
			got = append(got, r.name)
		}
	}
	if diff := cmp.Diff([]string{"retries-answered"}, got); diff != "" {
		t.Errorf("efficient runs (-want +got):\n%s", diff)
	}
	figs, err := tradeoffFigures(&input{Outputs: &results.Outputs{Summary: s}})
	if err != nil || len(figs) != 1 {
		t.Fatalf("%d figures, %v", len(figs), err)
	}
	for _, w := range []string{"retries-answered (300 jobs/h, 0 failed production calls)", "runs[].production[].failed"} {
		if !strings.Contains(figs[0].caption, w) {
			t.Errorf("caption %q lacks %q", figs[0].caption, w)
		}
	}
	if !strings.Contains(figs[0].title, "failed production calls") {
		t.Errorf("title %q does not name failed production calls", figs[0].title)
	}
}
