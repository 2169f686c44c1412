package results

import (
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestJain(t *testing.T) {
	cases := []struct {
		name string
		xs   []float64
		want float64
	}{
		{"equal", []float64{5, 5, 5, 5}, 1},
		{"one takes all of four", []float64{9, 0, 0, 0}, 0.25},
		{"1,2,3", []float64{1, 2, 3}, 36.0 / 42},
		{"single", []float64{7}, 1},
		{"all zero", []float64{0, 0}, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Jain(tc.xs); math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("Jain(%v) = %v, want %v", tc.xs, got, tc.want)
			}
		})
	}
}

// TestConvergenceStep: a limit that ramps 10, 20, ..., 100 then holds at
// 100 ± 1 settles when it first reaches 90 (within 10% of 100).
func TestConvergenceStep(t *testing.T) {
	var rows []SeriesRow
	for i := 0; i < 60; i++ {
		limit := int32(min(10*(i+1), 100))
		if i >= 10 && i%2 == 1 {
			limit = 101
		}
		if i == 12 {
			limit = 115 // an overshoot beyond the band, then back
		}
		rows = append(rows, SeriesRow{T: float64(10 * i), Model: 0, Limit: limit})
	}
	got := Convergence(rows, []string{"m"}, nil, []Disturbance{{Kind: "start"}}, 600)
	// settling: from sample 13 (101) every later limit is within ±10.1;
	// reversals: down at 13, then every move from 15 on (45): 46 in 600 s.
	want := []ConvergenceRow{{Model: "m", Disturbance: Disturbance{Kind: "start", At: 0}, Settled: 101, TimeToBand: 130,
		Overshoot: 14.0 / 101, Oscillation: 0.5, SettlingTime: 130, ReversalsPerHour: 46 * 6, DepthErrMean: -1, DepthErrP90: -1}}
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(1e-9, 1e-9)); diff != "" {
		t.Errorf("Convergence (-want +got):\n%s", diff)
	}
}

func TestConvergenceSkipsFlatAndSplitsSegments(t *testing.T) {
	var rows []SeriesRow
	for i := 0; i < 40; i++ {
		rows = append(rows, SeriesRow{T: float64(i), Model: 0, Limit: 5}) // flat: no row
		l := int32(50)
		if i >= 20 {
			l = 20
		}
		rows = append(rows, SeriesRow{T: float64(i), Model: 1, Limit: l})
	}
	got := Convergence(rows, []string{"flat", "step"}, nil, []Disturbance{{Kind: "cut", At: 20 * time.Second}, {Kind: "start"}}, 40)
	if len(got) != 2 || got[0].Disturbance.Kind != "start" || got[1].Disturbance.Kind != "cut" {
		t.Fatalf("want rows for start and cut of model step only, got %+v", got)
	}
	if got[0].Settled != 50 || got[0].TimeToBand != 0 || got[1].Settled != 20 || got[1].TimeToBand != 0 {
		t.Errorf("segments not split at the disturbance: %+v", got)
	}
}

func TestCompare(t *testing.T) {
	old := Run{Lanes: []Lane{{Model: "a", ThroughputPerHour: 10}, {Model: "b", ThroughputPerHour: 0}, {Model: "gone", ThroughputPerHour: 3}}}
	new := Run{Lanes: []Lane{{Model: "a", ThroughputPerHour: 25}, {Model: "b", ThroughputPerHour: 4}}}
	got := Compare(old, new)
	if len(got) != 3 {
		t.Fatalf("want 3 rows, got %d", len(got))
	}
	if got[0].Model != "a" || got[0].Multiplier == nil || *got[0].Multiplier != 2.5 {
		t.Errorf("lane a: want multiplier 2.5 first, got %+v", got[0])
	}
	if got[1].Model != "b" || got[1].Multiplier != nil {
		t.Errorf("lane b: baseline completed nothing, want no multiplier, got %+v", got[1])
	}
	if got[2].Model != "gone" || got[2].NewPerHour != 0 || *got[2].Multiplier != 0 {
		t.Errorf("lane only in the baseline: got %+v", got[2])
	}
}

// TestStats checks the percentiles against a brute-force definition: the
// smallest sample with at least p of the samples at or below it.
func TestStats(t *testing.T) {
	xs := make([]float64, 1000)
	for i := range xs {
		xs[i] = float64((i * 7919) % 1000)
	}
	got := NewStats(append([]float64(nil), xs...))
	brute := func(p float64) float64 {
		for v := 0.0; ; v++ {
			n := 0
			for _, x := range xs {
				if x <= v {
					n++
				}
			}
			if float64(n) >= p*float64(len(xs)) {
				return v
			}
		}
	}
	want := Stats{Mean: 499.5, P50: brute(0.5), P90: brute(0.9), P99: brute(0.99)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("NewStats (-want +got):\n%s", diff)
	}
}
