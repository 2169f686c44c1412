package report_test

import (
	"os"

	"github.com/evalsched/lab/report"
	"github.com/evalsched/lab/results"
)

// Two runs of one window: lane a doubled its jobs but only half as much
// again in tokens (the new policy served its cheaper jobs); lane b ran
// only under the new policy, so it has no multiplier.
func ExampleWriteCompareTable() {
	old := results.Run{
		Lanes: []results.Lane{{Model: "a", Completed: 10, ThroughputPerHour: 10, TokensPerHour: 1e6}},
		Total: results.Lane{Model: "(all)", Completed: 10, ThroughputPerHour: 10, TokensPerHour: 1e6},
	}
	new := results.Run{
		Lanes: []results.Lane{
			{Model: "a", Completed: 20, ThroughputPerHour: 20, TokensPerHour: 1.5e6},
			{Model: "b", Completed: 5, ThroughputPerHour: 5, TokensPerHour: 2e5},
		},
		Total: results.Lane{Model: "(all)", Completed: 25, ThroughputPerHour: 25, TokensPerHour: 1.7e6},
	}
	if err := report.WriteCompareTable(os.Stdout, old, new, results.Compare(old, new), 0); err != nil {
		panic(err)
	}
	// Output:
	// model  old jobs/h  new jobs/h  multiplier  tokens x  old p90 s  new p90 s  old p90 wait  new p90 wait
	//       a        10.0        20.0       2.00x     1.50x          0          0            0%            0%
	//       b         0.0         5.0  old 0 jobs         -          0          0            0%            0%
	//   (all)        10.0        25.0       2.50x     1.70x          0          0            0%            0%
}
