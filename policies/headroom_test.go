package policies

import (
	"testing"
	"time"
)

// windowState is a fakeState whose one model reads a fixed quota window.
type windowState struct {
	*fakeState
	reading QuotaReading
}

func (w windowState) Quota(ModelID) QuotaReading { return w.reading }
func (w windowState) Rejections(ModelID) int     { return 0 }

// TestRaiseNeedsQuotaHeadroom: with the depth below target, the limit
// binding and no 429, the step controller raises 40 → 45 only while the
// raise leaves room in every quota window. The expectation is computed
// here from the window's arithmetic: filling 5 more slots on 40 running
// jobs adds 5/40 of the model's own use, so the raise is held exactly when
// use + 0.125 × own ≥ 1 in some dimension.
func TestRaiseNeedsQuotaHeadroom(t *testing.T) {
	cases := []struct {
		name     string
		use, own [NumDims]float64
		quota    bool // the State offers the quota signal
	}{
		{"empty window", [NumDims]float64{}, [NumDims]float64{}, true},
		{"half full, half of it ours", [NumDims]float64{DimTPM: 0.5}, [NumDims]float64{DimTPM: 0.25}, true},
		{"just under: 0.9 + 0.125 × 0.79", [NumDims]float64{DimTPM: 0.9}, [NumDims]float64{DimTPM: 0.79}, true},
		{"exactly full after: 0.9 + 0.125 × 0.8", [NumDims]float64{DimTPM: 0.9}, [NumDims]float64{DimTPM: 0.8}, true},
		{"full by others, none ours", [NumDims]float64{DimTPM: 0.99}, [NumDims]float64{}, true},
		{"the fullest of several dimensions decides", [NumDims]float64{DimRPM: 0.2, DimTPM: 0.5, DimTPD: 0.97}, [NumDims]float64{DimRPM: 0.2, DimTPM: 0.5, DimTPD: 0.3}, true},
		{"no quota signal: the depth rule alone", [NumDims]float64{DimTPM: 0.99}, [NumDims]float64{DimTPM: 0.99}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			room := true
			for d := range tc.use {
				if tc.quota && tc.use[d] > 0 && tc.use[d]+float64(45-40)/40*tc.own[d] >= 1 {
					room = false
				}
			}
			wantLimit, wantAct := 45, ActionRaise
			if !room {
				wantLimit, wantAct = 40, ActionNoHeadroom
			}
			now := time.Unix(1000, 0)
			fs := newFakeState(1, 1000)
			fs.running[0] = 40
			in := signals{now: now, running: 40, binding: true}
			if tc.quota {
				in.quota = windowState{fakeState: fs, reading: QuotaReading{Use: tc.use, ModelUse: tc.own}}
			}
			c := controller{staleAfter: time.Minute, step: 5, kind: ControllerStep}
			ls := limitState{limit: 40, target: 20, minL: 1, maxL: 1000}
			c.tick(&ls, 0, now, in)
			if ls.limit != wantLimit || ls.action != wantAct {
				t.Errorf("limit %d (%v), want %d (%v)", ls.limit, ls.action, wantLimit, wantAct)
			}
		})
	}
}

// TestNoHeadroomHoldsEveryController: the rival controllers raise through
// apply, which must hold the same way when the window is full of the
// model's own use, and leave the real-valued limit where it was.
func TestNoHeadroomHoldsEveryController(t *testing.T) {
	for _, kind := range Controllers[1:] {
		t.Run(string(kind), func(t *testing.T) {
			now := time.Unix(1000, 0)
			fs := newFakeState(1, 1000)
			fs.running[0] = 40
			full := windowState{fakeState: fs, reading: QuotaReading{Use: [NumDims]float64{DimTPM: 0.95}, ModelUse: [NumDims]float64{DimTPM: 0.9}}}
			c := controller{staleAfter: time.Minute, step: 5, factor: 1.25, mult: true, kind: kind}
			ls := limitState{limit: 40, target: 20, minL: 1, maxL: 1000, rival: rivalState{fl: 40, slow: true}}
			c.apply(&ls, 50, 1, signals{now: now, running: 40, binding: true, quota: full})
			if ls.limit != 40 || ls.action != ActionNoHeadroom || ls.rival.fl != 40 {
				t.Errorf("full window: limit %d (%v, real %g), want 40 held (no-headroom)", ls.limit, ls.action, ls.rival.fl)
			}
			ls = limitState{limit: 40, target: 20, minL: 1, maxL: 1000, rival: rivalState{fl: 40, slow: true}}
			c.apply(&ls, 50, 1, signals{now: now, running: 40, binding: true})
			if ls.limit != 50 || ls.action != ActionRaise {
				t.Errorf("no quota signal: limit %d (%v), want 50 (raise)", ls.limit, ls.action)
			}
		})
	}
}
