package policies

import (
	"math"
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
			in := signals{now: now, running: 40, ran: ranAt(minute), minute: 1, binding: true}
			if tc.quota {
				in.quota = windowState{fakeState: fs, reading: QuotaReading{Use: tc.use, ModelUse: tc.own}}
			}
			c := controller{staleAfter: time.Minute, step: 5, kind: ControllerStep}
			ls := limitState{limit: 40, target: 20, minL: 1, maxL: 1000}
			c.tick(&ls, 0, now, &in)
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
			c.apply(&ls, 50, 1, &signals{now: now, running: 40, ran: ranAt(40), minute: 1, binding: true, quota: full})
			if ls.limit != 40 || ls.action != ActionNoHeadroom || ls.rival.fl != 40 {
				t.Errorf("full window: limit %d (%v, real %g), want 40 held (no-headroom)", ls.limit, ls.action, ls.rival.fl)
			}
			ls = limitState{limit: 40, target: 20, minL: 1, maxL: 1000, rival: rivalState{fl: 40, slow: true}}
			c.apply(&ls, 50, 1, &signals{now: now, running: 40, binding: true})
			if ls.limit != 50 || ls.action != ActionRaise {
				t.Errorf("no quota signal: limit %d (%v), want 50 (raise)", ls.limit, ls.action)
			}
		})
	}
}

// TestTickRingMean: the mean running count over the last k ticks, with
// fewer ticks recorded at first and the ring wrapping after 16, against a
// mean taken over the whole history here, by a ring that sums on reading
// and by one that keeps the sum (sumOver); and the value k ticks ago (the
// slow start's back-off), the oldest kept while fewer are recorded.
func TestTickRingMean(t *testing.T) {
	for _, c := range []struct {
		k    int
		kept bool
	}{{1, false}, {6, false}, {16, false}, {1, true}, {6, true}, {16, true}} {
		k := c.k
		var r tickRing
		if c.kept {
			r = sumOver(k)
		}
		var history []int
		for tick := range 40 {
			running := (tick*37)%23 + 1 // never 0: a sum that misses its first value shows
			history = append(history, running)
			r.record(running)
			got := r.mean(k)
			if want := history[max(0, len(history)-1-min(k, slowMaxLookback-1))]; r.ago(k) != want {
				t.Fatalf("k=%d tick %d: %d ticks ago %d, want %d", k, tick, k, r.ago(k), want)
			}
			last := history[max(0, len(history)-k):]
			sum := 0
			for _, x := range last {
				sum += x
			}
			if want := float64(sum) / float64(len(last)); got != want {
				t.Fatalf("k=%d (sum kept: %v) tick %d: mean %g, want %g", k, c.kept, tick, got, want)
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

// TestJobRateHold: with job_rate_hold, a raise is projected at the highest
// per-job share of a per-minute window seen, halved every half-life, when
// that is above the share per job now (young jobs after a climb). The
// expectations are the window arithmetic done here: at t0 one job used
// 0.6/100 of the TPM window; five minutes later (one half-life) the jobs
// use 0.2/100 each, so the hold projects 0.003 a job and 250 jobs at
// 0.5 − 0.2 + 250 × 0.003 = 1.05 ≥ 1 (held), where the share now projects
// 0.3 + 250 × 0.002 = 0.8 (raised).
func TestJobRateHold(t *testing.T) {
	t0 := time.Unix(1000, 0)
	fs := newFakeState(1, 1000)
	for _, tc := range []struct {
		halfLife  time.Duration
		wantLimit int
		wantAct   Action
	}{
		{5 * time.Minute, 200, ActionNoHeadroom},
		{0, 250, ActionRaise},
	} {
		t.Run(tc.halfLife.String(), func(t *testing.T) {
			c := controller{staleAfter: time.Minute, step: 50, kind: ControllerStep}
			ls := limitState{limit: 100, target: 20, minL: 1, maxL: 1000}
			ls.hold.halfLife = tc.halfLife
			hold := &ls.hold // as control passes it: only with job_rate_hold on
			if tc.halfLife == 0 {
				hold = nil
			}
			reading := func(use, own float64) QuotaState {
				return windowState{fakeState: fs, reading: QuotaReading{Use: [NumDims]float64{DimTPM: use}, ModelUse: [NumDims]float64{DimTPM: own}}}
			}
			// t0: 100 jobs, 0.6 of the window theirs: 150 would fill it (0.15 + 150 × 0.006 = 1.05), so the step 100 → 150 is held.
			c.tick(&ls, 0, t0, &signals{now: t0, running: 100, ran: ranAt(100), minute: 1, binding: true, quota: reading(0.75, 0.6), hold: hold})
			if ls.limit != 100 || ls.action != ActionNoHeadroom {
				t.Fatalf("t0: limit %d (%v), want 100 held", ls.limit, ls.action)
			}
			ls.limit = 200
			t1 := t0.Add(5 * time.Minute)
			c.tick(&ls, 0, t1, &signals{now: t1, running: 200, ran: ranAt(100), minute: 1, binding: true, quota: reading(0.5, 0.2), hold: hold})
			if ls.limit != tc.wantLimit || ls.action != tc.wantAct {
				t.Errorf("t0+5m: limit %d (%v), want %d (%v)", ls.limit, ls.action, tc.wantLimit, tc.wantAct)
			}
			if want := math.Exp2(-1) * 0.006; tc.halfLife > 0 && math.Abs(ls.hold.rate[DimTPM]-want) > 1e-12 {
				t.Errorf("held per-job share %g, want %g", ls.hold.rate[DimTPM], want)
			}
		})
	}
}

// TestQuotaProbeSlowsRaisesNearAQuota: once one of the model's quota
// windows is a third full, a raise grows the limit by at most
// factor^(tick/quota_dead_time) a tick (at least one job), for every
// controller; below a third the raise goes through. The cap is computed
// here from the config: 1.25^(10 s / 2 min) on a limit of 40 is 40.75,
// rounded to 41 (the raise of at least one job); on 400, 407.5 → 408 (Go
// rounds half away from zero).
func TestQuotaProbeSlowsRaisesNearAQuota(t *testing.T) {
	cfg := SchedulerConfig{Tick: 10 * time.Second, StepMode: StepMultiplicative}.WithDefaults()
	probe := math.Pow(cfg.Factor, float64(cfg.Tick)/float64(cfg.QuotaDeadTime))
	capped := func(l int) int { return max(l+1, int(math.Round(float64(l)*probe))) }
	cases := []struct {
		name  string
		use   float64
		limit int
		want  func(raised int) int // the limit after a raise to raised
	}{
		{"a third full: capped", 1.0 / 3, 40, func(int) int { return capped(40) }},
		{"half full, a large limit: capped", 0.5, 400, func(int) int { return capped(400) }},
		{"below a third: the raise goes through", 0.33, 40, func(r int) int { return r }},
	}
	now := time.Unix(1000, 0)
	for _, kind := range Controllers {
		for _, tc := range cases {
			t.Run(string(kind)+"/"+tc.name, func(t *testing.T) {
				c := newController(SchedulerConfig{Tick: cfg.Tick, StepMode: StepMultiplicative, Controller: kind}.WithDefaults())
				fs := newFakeState(1, 1000)
				fs.running[0] = tc.limit
				// own use small: the headroom rule leaves room for the raise
				q := windowState{fakeState: fs, reading: QuotaReading{Use: [NumDims]float64{DimTPM: tc.use}, ModelUse: [NumDims]float64{DimTPM: 0.01}}}
				in := signals{now: now, running: tc.limit, ran: ranAt(float64(tc.limit)), minute: 1, binding: true, quota: q, quotaProbe: c.quotaProbe}
				ls := limitState{limit: tc.limit, target: 20, minL: 1, maxL: 10000, rival: rivalState{fl: float64(tc.limit), slow: true}}
				raised := c.raise(tc.limit, 10000)
				if kind == ControllerStep {
					c.tick(&ls, 0, now, &in)
				} else {
					c.apply(&ls, float64(raised), 1, &in)
				}
				if want := tc.want(raised); ls.limit != want || ls.action != ActionRaise {
					t.Errorf("limit %d → %d (%v), want %d (raise)", tc.limit, ls.limit, ls.action, want)
				}
				if kind != ControllerStep && ls.rival.fl != float64(ls.limit) {
					t.Errorf("real-valued limit %g, want it to follow the capped limit %d", ls.rival.fl, ls.limit)
				}
			})
		}
	}
}

// ranAt is a ring of running counts whose mean over the last tick is n.
func ranAt(n float64) *tickRing {
	r := sumOver(1)
	r.record(int(n))
	return &r
}
