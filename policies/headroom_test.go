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
// here from the window's arithmetic: the model's own use of a window came
// from the R jobs it ran over it, so 45 jobs would use 45/R of it, and the
// raise is held exactly when use + (45 − R)/R × own ≥ 1 in some dimension.
// R is 40 (steady) unless the case says the limit climbed within the
// minute: then R is the minute's mean for the per-minute windows (RPM,
// TPM) and still the 40 running now for the daily ones.
func TestRaiseNeedsQuotaHeadroom(t *testing.T) {
	cases := []struct {
		name     string
		use, own [NumDims]float64
		quota    bool    // the State offers the quota signal
		minute   float64 // mean running over the last minute (0: 40, steady)
	}{
		{"empty window", [NumDims]float64{}, [NumDims]float64{}, true, 0},
		{"half full, half of it ours", [NumDims]float64{DimTPM: 0.5}, [NumDims]float64{DimTPM: 0.25}, true, 0},
		{"just under: 0.9 + 0.125 × 0.79", [NumDims]float64{DimTPM: 0.9}, [NumDims]float64{DimTPM: 0.79}, true, 0},
		{"exactly full after: 0.9 + 0.125 × 0.8", [NumDims]float64{DimTPM: 0.9}, [NumDims]float64{DimTPM: 0.8}, true, 0},
		{"full by others, none ours", [NumDims]float64{DimTPM: 0.99}, [NumDims]float64{}, true, 0},
		{"the fullest of several dimensions decides", [NumDims]float64{DimRPM: 0.2, DimTPM: 0.5, DimTPD: 0.97}, [NumDims]float64{DimRPM: 0.2, DimTPM: 0.5, DimTPD: 0.3}, true, 0},
		{"no quota signal: the depth rule alone", [NumDims]float64{DimTPM: 0.99}, [NumDims]float64{DimTPM: 0.99}, false, 0},
		{"climbed within the minute: 0.5 + 25/20 × 0.45 ≥ 1 (on 40 now: 0.56)", [NumDims]float64{DimTPM: 0.5}, [NumDims]float64{DimTPM: 0.45}, true, 20},
		{"climbed within the minute: 0.5 + 25/20 × 0.39 < 1", [NumDims]float64{DimTPM: 0.5}, [NumDims]float64{DimTPM: 0.39}, true, 20},
		{"climbed within the minute, a daily window: 0.5 + 5/40 × 0.25 < 1", [NumDims]float64{DimTPD: 0.5}, [NumDims]float64{DimTPD: 0.25}, true, 20},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			minute := tc.minute
			if minute == 0 {
				minute = 40
			}
			room := true
			for d := range tc.use {
				r := 40.0
				if d == DimRPM || d == DimTPM {
					r = minute
				}
				if tc.quota && tc.use[d] > 0 && tc.use[d]+(45-r)/r*tc.own[d] >= 1 {
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
			in := signals{now: now, running: 40, minuteRunning: minute, binding: true}
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
			c.apply(&ls, 50, 1, signals{now: now, running: 40, minuteRunning: 40, binding: true, quota: full})
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

// TestMinuteRingMean: the mean running count over the last k ticks, with
// fewer ticks recorded at first and the ring wrapping after 16, against a
// mean taken over the whole history here.
func TestMinuteRingMean(t *testing.T) {
	for _, k := range []int{1, 6, 16} {
		var r minuteRing
		var history []int
		for tick := range 40 {
			running := (tick * 37) % 23
			history = append(history, running)
			got := r.record(running, k)
			last := history[max(0, len(history)-k):]
			sum := 0
			for _, x := range last {
				sum += x
			}
			if want := float64(sum) / float64(len(last)); got != want {
				t.Fatalf("k=%d tick %d: mean %g, want %g", k, tick, got, want)
			}
		}
	}
	if got := minuteTicks(10 * time.Second); got != 6 {
		t.Errorf("minuteTicks(10s) = %d, want 6", got)
	}
	if got := minuteTicks(7 * time.Second); got != 9 {
		t.Errorf("minuteTicks(7s) = %d, want 9 (a minute is covered)", got)
	}
	if got := minuteTicks(time.Second); got != slowMaxLookback {
		t.Errorf("minuteTicks(1s) = %d, want the ring's %d", got, slowMaxLookback)
	}
}
