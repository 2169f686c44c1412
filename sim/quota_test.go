package sim

import (
	"testing"
	"time"

	"github.com/evalsched/lab/scenario"
	"github.com/google/go-cmp/cmp"
)

// TestDailyWindowReopens exhausts a daily token window at t and checks when
// a try fits again: rolling, exactly 24 h after the entry that makes room;
// fixed, at the next reset time of day.
func TestDailyWindowReopens(t *testing.T) {
	reset := 4 * time.Hour
	for _, tc := range []struct {
		name  string
		reset *time.Duration
		clock time.Duration
		// exhausted at virtual time at; want the retry-after then and
		// whether a try fits just before and at the reopening instant
		at, want Time
	}{
		{"rolling", nil, 2 * time.Hour, 20 * Minute, 24*Hour - 20*Minute + 10*Minute},
		{"fixed 04:00 from 02:00", &reset, 2 * time.Hour, 20 * Minute, 2*Hour - 20*Minute},
		{"fixed 04:00 from 05:00", &reset, 5 * time.Hour, 20 * Minute, 23*Hour - 20*Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newQuotaPool(poolSpec{limits: [scenario.NumDims]float64{scenario.DimTPD: 100}, dailyReset: tc.reset, clock: tc.clock})
			// 60 tokens at 10m, 40 at the exhaustion instant: full.
			for _, x := range []struct {
				at  Time
				amt float64
			}{{10 * Minute, 60}, {tc.at, 40}} {
				if _, ok := p.admit(x.at, x.amt, srcEval, -1); !ok {
					t.Fatalf("admit %g at %v refused", x.amt, x.at.Duration())
				}
			}
			got := p.check(tc.at, 50)
			if diff := cmp.Diff(tc.want.Duration(), got.Duration()); diff != "" {
				t.Errorf("retry-after (-want +got):\n%s", diff)
			}
			open := tc.at + tc.want
			if d := p.check(open-1, 50); d <= 0 {
				t.Errorf("fits 1µs before reopening (retry-after %v)", d.Duration())
			}
			if d := p.check(open, 50); d != 0 {
				t.Errorf("does not fit at reopening: retry-after %v", d.Duration())
			}
		})
	}
}

// TestRetryBurnIffConfigured: a rejected try counts against RPM only with
// count_rejected.
func TestRetryBurnIffConfigured(t *testing.T) {
	for _, countRejected := range []bool{false, true} {
		t.Run(map[bool]string{false: "off", true: "on"}[countRejected], func(t *testing.T) {
			p := newQuotaPool(poolSpec{limits: [scenario.NumDims]float64{scenario.DimRPM: 10, scenario.DimTPD: 100}, countRejected: countRejected})
			if _, ok := p.admit(0, 100, srcEval, -1); !ok {
				t.Fatal("first try refused")
			}
			burned := 0
			for i := 0; i < 5; i++ {
				if _, ok := p.admit(Second, 1, srcEval, -1); ok {
					t.Fatal("a try fitted a full TPD")
				}
				if p.burn(Second, srcEval, -1) {
					burned++
				}
			}
			want := map[bool]int{false: 0, true: 5}[countRejected]
			all, _ := p.dimUse(Second, srcEval)
			if diff := cmp.Diff([]float64{float64(want), float64(1 + want)}, []float64{float64(burned), all[scenario.DimRPM] * 10}); diff != "" {
				t.Errorf("burned tries and RPM window count (-want +got):\n%s", diff)
			}
		})
	}
}
