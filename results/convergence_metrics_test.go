package results

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestSegmentMetrics: hand-built series with answers worked out by hand.
func TestSegmentMetrics(t *testing.T) {
	// series builds n samples 10 s apart from t0 with f(i) → (limit, depth,
	// inflight, waiting); streams 100.
	series := func(n int, f func(i int) (limit, depth, inflight, waiting int32)) []SeriesRow {
		var rows []SeriesRow
		for i := range n {
			l, d, in, w := f(i)
			rows = append(rows, SeriesRow{T: float64(10 * i), Limit: l, Depth: d, Inflight: in, Waiting: w, Streams: 100})
		}
		return rows
	}
	tests := []struct {
		name   string
		rows   []SeriesRow
		target float64
		want   ConvergenceRow
	}{
		{
			// busy from sample 5 (inflight 95 of 100); the limit steps up to
			// 50 at sample 4 and holds: settled at 40 s; one move direction,
			// no reversal; depth 8 at target 8 but 18 in the first 5: errors
			// are 10 ×5 and 0 ×55: mean 50/60, p90 (54th of 60) 0.
			name: "ramp then hold", target: 8,
			rows: series(60, func(i int) (int32, int32, int32, int32) {
				if i < 5 {
					return int32(10 * (i + 1)), 18, int32(50 + 5*i), 10
				}
				return 50, 8, 95, 10
			}),
			want: ConvergenceRow{TimeToCapacity: 50, SettlingTime: 40, ReversalsPerHour: 0, DepthErrMean: 50.0 / 60, DepthErrP90: 0},
		},
		{
			// the ×1.25 cycle 455 / 569 / 711 / 569 / 455 …: never within
			// ±10% for 30 samples; a reversal every other move: moves up, up,
			// down, down, up, up …, a reversal every 2 moves: 59 moves → 29
			// reversals in 600 s = 174/h. No job waits from sample 0.
			name: "cycling", target: 20,
			rows: series(60, func(i int) (int32, int32, int32, int32) {
				cyc := []int32{455, 569, 711, 569}
				return cyc[i%4], 20 + 40*int32(i%2), 100, 0
			}),
			want: ConvergenceRow{TimeToCapacity: 0, SettlingTime: -1, ReversalsPerHour: 29 * 6, DepthErrMean: 20, DepthErrP90: 40},
		},
		{
			name: "never busy, always waiting, no target",
			rows: series(40, func(i int) (int32, int32, int32, int32) { return int32(5 + i%2), 0, 10, 3 }),
			want: ConvergenceRow{TimeToCapacity: -1, SettlingTime: 0, ReversalsPerHour: 38 * 9, DepthErrMean: -1, DepthErrP90: -1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got ConvergenceRow
			span := tc.rows[len(tc.rows)-1].T + 10
			segmentMetrics(&got, tc.rows, tc.target, span)
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateApprox(1e-9, 1e-9)); diff != "" {
				t.Errorf("segmentMetrics (-want +got):\n%s", diff)
			}
		})
	}
}

// TestConvergenceOwnDisturbances: a capacity event on another model makes
// no row and does not cut this model's segment.
func TestConvergenceOwnDisturbances(t *testing.T) {
	var rows []SeriesRow
	for i := range 40 {
		rows = append(rows, SeriesRow{T: float64(10 * i), Model: 0, Limit: int32(10 + i%2)})
	}
	ds := []Disturbance{{Kind: "start"}, {Kind: "slowdown", At: 100 * time.Second, Model: "other"},
		{Kind: "slowdown", At: 200 * time.Second, Model: "m"}}
	got := Convergence(rows, []string{"m", "other"}, nil, ds, 400)
	var labels []string
	for _, r := range got {
		labels = append(labels, r.Disturbance.Label())
	}
	if diff := cmp.Diff([]string{"start", "slowdown@3m20s:m"}, labels); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}
