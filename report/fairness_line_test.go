package report

import (
	"testing"

	"github.com/evalsched/lab/results"
)

func TestFairnessLine(t *testing.T) {
	tiers := []results.TierRuleSummary{
		{TierRule: results.TierRule{Tier: "1", Offered: 1000, Taken: 800}, Share: 0.8, AdmittedPerHour: -1},
		{TierRule: results.TierRule{Tier: "2", Offered: 200, Taken: 160, HigherBackloggedHours: 2, AdmittedHigher: 200}, Share: 0.8, AdmittedPerHour: 100},
		{TierRule: results.TierRule{Tier: "3", HigherBackloggedHours: 2, AdmittedHigher: 80}, Share: -1, AdmittedPerHour: 40},
	}
	for _, tc := range []struct {
		name string
		f    results.FairnessSummary
		want string
	}{
		{"finished and censored", results.FairnessSummary{SmallBatches: 7, SmallUnfinished: 2, JainPerLane: 0.5, JainPerLaneTokens: 0.25, LaneWindows: 7, JainCrossLane: 0.125,
			BehindLargeKM:   results.KM{Ended: 3, Censored: 2, P50: 400, P90: -1, MaxObserved: 5000},
			JobWait:         results.KM{Ended: 10, P50: 12.5, P90: 30},
			TimeToFairShare: results.KM{Ended: 4, Censored: 1, P50: 20, P90: 60}, TierRule: tiers},
			"new         jain per lane 0.500 (tokens 0.250, 7 lane-windows; cross-lane 0.125)  small batches finished 5 of 7; small behind large: 3 finished 2 censored, " +
				"makespan p50 400 s p90 > 5000 s  job wait p50 12.5 s p90 30.0 s  fair share p50 20.0 s (1 censored)  " +
				"tier rule: tier 1 80% of 1,000, tier 2 80% of 200; lowest tier 3 40.0/h"},
		{"nothing observed", results.FairnessSummary{JainPerLane: 1},
			"new         jain per lane 1.000 (tokens 0.000, 0 lane-windows; cross-lane 0.000)  small batches finished 0 of 0; small behind large: 0 finished 0 censored, " +
				"makespan p50 - s p90 - s  job wait p50 - s p90 - s  fair share p50 - s (0 censored)  tier rule: -; lowest -"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := FairnessLine("new", tc.f); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}
