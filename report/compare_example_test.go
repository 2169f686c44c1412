package report_test

import (
	"os"

	"github.com/evalsched/lab/report"
	"github.com/evalsched/lab/results"
)

// Two runs of one window: lane a doubled its jobs but only half as much
// again in tokens (the new policy served its cheaper jobs); lane b ran
// only under the new policy, and lane c's baseline completed 10 jobs, too
// few for a ratio: neither has a multiplier. The p90 wait shares follow
// in a second block of columns, the table being wider than 100.
func ExampleWriteCompareTable() {
	old := results.Run{
		Lanes: []results.Lane{{Model: "a", Completed: 100, ThroughputPerHour: 10, TokensPerHour: 1e6},
			{Model: "c", Completed: 10, ThroughputPerHour: 1, TokensPerHour: 10}},
		Total: results.Lane{Model: "(all)", Completed: 110, ThroughputPerHour: 11, TokensPerHour: 1e6 + 10},
	}
	new := results.Run{
		Lanes: []results.Lane{
			{Model: "a", Completed: 200, ThroughputPerHour: 20, TokensPerHour: 1.5e6},
			{Model: "b", Completed: 50, ThroughputPerHour: 5, TokensPerHour: 2e5},
			{Model: "c", Completed: 150, ThroughputPerHour: 15, TokensPerHour: 4.6e5},
		},
		Total: results.Lane{Model: "(all)", Completed: 400, ThroughputPerHour: 40, TokensPerHour: 2.16e6},
	}
	if err := report.WriteCompareTable(os.Stdout, old, new, results.Compare(old, new), 0); err != nil {
		panic(err)
	}
	// Output:
	// model  old jobs/h  new jobs/h    multiplier  tokens x  old p90 s  new p90 s  old p90 wait share
	//       a        10.0        20.0         2.00x     1.50x          0          0                  0%
	//       c         1.0        15.0  n/a (old 10)       n/a          0          0                  0%
	//       b         0.0         5.0   n/a (old 0)       n/a          0          0                  0%
	//   (all)        11.0        40.0         3.64x     2.16x          0          0                  0%
	//
	//   model  new p90 wait share
	//       a                  0%
	//       c                  0%
	//       b                  0%
	//   (all)                  0%
	// n/a (old N): the baseline completed N jobs in the window, fewer than 20: too few for a ratio.
}
