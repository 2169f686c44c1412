package report

import (
	"testing"

	"github.com/evalsched/lab/results"
)

func TestFairnessLine(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    results.FairnessSummary
		want string
	}{
		{"finished", results.FairnessSummary{JainMean: 0.5, SmallBatches: 7, SmallUnfinished: 2, BehindLarge: 3, BehindLargeMakespan: results.Stats{P50: 400, P90: 1200}},
			"new         jain 0.500  small batches finished 5 of 7; behind large: 3, makespan of the finished p50 400 s p90 1200 s  tier shares: (none)"},
		{"none finished", results.FairnessSummary{JainMean: 0.5, SmallBatches: 3, SmallUnfinished: 3, BehindLarge: 3},
			"new         jain 0.500  small batches finished 0 of 3; behind large: 3, makespan of the finished p50 - s p90 - s  tier shares: (none)"},
		{"none behind", results.FairnessSummary{JainMean: 1},
			"new         jain 1.000  small batches finished 0 of 0; behind large: 0, makespan of the finished p50 - s p90 - s  tier shares: (none)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := FairnessLine("new", tc.f); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}
