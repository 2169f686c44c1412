package report

import (
	"strings"
	"testing"

	"github.com/evalsched/lab/results"
	"github.com/google/go-cmp/cmp"
)

// TestControllerTable: lanes with convergence rows, busiest (by the first
// run) first; the start row's times; reversals and |d − T| averaged over the
// lane's rows; nothing without variants.
func TestControllerTable(t *testing.T) {
	conv := func(model string, cap, settle, rev, derr float64) results.ConvergenceRow {
		return results.ConvergenceRow{Model: model, TimeToCapacity: cap, SettlingTime: settle, ReversalsPerHour: rev, DepthErrMean: derr}
	}
	runs := []results.Run{
		{Policy: "step", Lanes: []results.Lane{{Model: "a", ThroughputPerHour: 10}, {Model: "b", ThroughputPerHour: 30, GatewayWaitContainerSeconds: 7200, HeadroomCaptured: 0.5}},
			Convergence: []results.ConvergenceRow{conv("a", 5, 6, 1, 2), conv("b", 100, -1, 10, 40), conv("b", 0, 50, 30, 20)}},
		{Policy: "slowstart", Lanes: []results.Lane{{Model: "b", ThroughputPerHour: 31, HeadroomCaptured: 1}},
			Convergence: []results.ConvergenceRow{conv("b", 200, 300, 2, 4)}},
	}
	s := results.Summary{Runs: runs, Variants: []results.VariantComparison{{Baseline: "step", Variant: "step"}, {Baseline: "step", Variant: "slowstart"}}}
	want := [][]string{
		{"b", "step (baseline)", "100", "-1", "20.0", "30", "2", "30", "50%"},
		{"b", "slowstart", "200", "300", "2.0", "4", "0", "31", "100%"},
		{"a", "step (baseline)", "5", "6", "1.0", "2", "0", "10", "0%"},
	}
	if diff := cmp.Diff(want, controllerTable(s).Rows); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	var b strings.Builder
	if err := WriteControllerTable(&b, results.Summary{Runs: runs}); err != nil || b.Len() != 0 {
		t.Errorf("without variants: %q, %v; want nothing", b.String(), err)
	}
}
