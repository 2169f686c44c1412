package report

import (
	"strings"
	"testing"

	"github.com/evalsched/lab/results"
)

func TestTimelineCaptionSaysWhichPanelIsMissing(t *testing.T) {
	cases := []struct {
		name             string
		maxDepth, total  float64
		want, wantAbsent string
	}{
		{"queue and 429s", 12, 500, "then tries rejected with 429", "stayed at 0"},
		{"queue only", 12, 0, "no 429 panel", "stayed at 0"},
		{"429s only", 0, 974513, "The gateway queue stayed at 0 calls throughout, so it has no panel: calls waited in 429 backoff", "no 429 panel"},
		{"neither", 0, 0, "no panel below: calls never waited at the gateway", "Below:"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tl := &timelines{o: &input{Outputs: &results.Outputs{}}}
			got := tl.caption("m", timelineLines{maxDepth: c.maxDepth, total429: c.total}, nil)
			if !strings.Contains(got, c.want) || strings.Contains(got, c.wantAbsent) {
				t.Errorf("caption %q: want %q and not %q", got, c.want, c.wantAbsent)
			}
		})
	}
}

func TestTierReadingFollowsTheData(t *testing.T) {
	run := func(pol string, t1, t3 float64) results.Run {
		return results.Run{Policy: pol, Fairness: results.FairnessSummary{TierShares: map[string]float64{"1": t1, "3": t3}}}
	}
	cases := []struct {
		name       string
		old, new   results.Run
		want       string
		higherFell bool
	}{
		{"highest tier fell", run("a", 0.03, 0.61), run("b", 0.02, 0.70), "tier 1 fell from 3% to 2%; the lowest: tier 3 rose from 61% to 70%", true},
		{"highest tier rose", run("a", 0.02, 0.70), run("b", 0.10, 0.50), "tier 1 rose from 2% to 10%", false},
		{"unchanged", run("a", 0.2, 0.8), run("b", 0.2, 0.8), "tier 1 kept 20%", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := tierReading(results.Summary{Runs: []results.Run{c.old, c.new}}, []string{"1", "3"})
			if !strings.Contains(got, c.want) {
				t.Errorf("got %q, want it to contain %q", got, c.want)
			}
			if fell := strings.Contains(got, "did not get a larger share"); fell != c.higherFell {
				t.Errorf("got %q: says the higher tier lost share = %v, want %v", got, fell, c.higherFell)
			}
		})
	}
}
