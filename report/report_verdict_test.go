package report

import (
	"testing"

	"github.com/evalsched/lab/results"
)

// TestVerdictReadingCost: the verdict's sentence gives the cost ratio only
// when the old run had a cost to divide by; a scenario without a container
// price (incident-0214) reads without a cost clause rather than with a
// "no old cost" one.
func TestVerdictReadingCost(t *testing.T) {
	m := 1.2
	runs := []results.Run{{Policy: "old"}, {Policy: "new"}}
	for _, tc := range []struct {
		name         string
		cost0, cost1 float64
		want         string
	}{
		{"priced", 2, 3, "The new took 1.20× the old throughput in total at 1.5× the container cost; 1.20× on m at 1.5× the cost; Jain 0.50 → 0.60."},
		{"no price", 0, 0, "The new took 1.20× the old throughput in total; 1.20× on m; Jain 0.50 → 0.60."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := verdictLane{model: "m", perHour: []float64{10, 12}, cost: []float64{tc.cost0, tc.cost1},
				r429: []int64{0, 0}, outageMin: []int64{0, 0}, jain: []*float64{ptr(0.5), ptr(0.6)}, multiplier: &m}
			if got := verdictReading(runs, []verdictLane{l}, l); got != tc.want {
				t.Errorf("verdict:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func ptr(v float64) *float64 { return &v }
