package policies

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// tick is one model's step as control takes it: slowIdle's alone for an
// idle model (idleFront), stepRule's otherwise. The step tests drive a
// model through it.
func (c *controller) tick(ls *limitState, depth int, asOf time.Time, in *signals) {
	if c.idleFront(depth, asOf, in.binding, in.now == c.fresh.now) {
		ls.depth = float64(depth)
		c.slowIdle(ls)
		return
	}
	c.stepRule(ls, depth, asOf, in)
}

// TestStaleMatchesSub: the memoised staleness test answers as the
// computation it keeps, on readings that repeat, move, are never taken,
// carry a monotonic clock reading, or sit in another location.
func TestStaleMatchesSub(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 44))
	base := time.Unix(1_700_000_000, 0)
	mono := time.Now()
	times := []time.Time{{}, base, base.Add(time.Second), base.Add(-time.Minute), base.In(time.FixedZone("x", 3600)),
		mono, mono.Add(30 * time.Second), mono.Round(0), mono.Add(-time.Hour), time.Unix(0, 1)}
	for _, after := range []time.Duration{0, time.Second, 30 * time.Second, time.Minute, -time.Second} {
		c := controller{staleAfter: after, step: 1, kind: ControllerStep}
		ls := limitState{limit: 5, target: 8, minL: 1, maxL: 10}
		stale := func(now, asOf time.Time) bool {
			ls.action = ActionHold
			c.tick(&ls, 3, asOf, &signals{now: now})
			return ls.action == ActionStale
		}
		if !stale(time.Time{}, time.Time{}) {
			t.Fatalf("staleAfter %v: a reading never taken is fresh", after)
		}
		for range 20000 {
			now := times[rng.IntN(len(times))]
			asOf := times[rng.IntN(len(times))]
			if rng.IntN(4) == 0 {
				asOf = now.Add(-time.Duration(rng.IntN(90)) * time.Second)
			}
			want := asOf.IsZero() || now.Sub(asOf) > after
			if got := stale(now, asOf); got != want {
				t.Fatalf("staleAfter %v: reading at %v stale at %v: %v, want %v", after, asOf, now, got, want)
			}
		}
	}
}

// slowStartStepRef is slowStartStep without the not-binding shortcut: the
// probe is worked out whatever apply does with it.
func slowStartStepRef(c *controller, ls *limitState, in *signals) (float64, int) {
	r := &ls.rival
	s := &r.ss
	l := float64(ls.limit)
	back := c.slowBackoff(s, ls.limit)
	t, d := ls.target, in.depth
	if d < 1 {
		s.empty++
		u := slowGain * t * math.Exp2(float64(s.empty)/float64(c.lookback))
		return r.fl + min(max(u, 1), c.slowProbe(l)-l), 1
	}
	probed := s.empty >= c.lookback
	s.empty = 0
	if probed && d > t+c.tolerance && float64(back) < l {
		return float64(back), -1
	}
	e := t - d
	if d > t && d <= t+c.tolerance {
		e = 0
	}
	most := (c.factor - 1) * l
	u := min(max(slowGain*e, -most), most)
	return r.fl + u, sign(u)
}

// TestSlowStartShortcutMatchesProbe: a slowstart step followed by apply
// leaves every model's state as the step that works out the probe does,
// over random limits (up to the largest), targets, empty runs (up to ones
// whose probe overflows) and depths, binding or not.
func TestSlowStartShortcutMatchesProbe(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 44))
	now := time.Unix(1_700_000_000, 0)
	for lb := 1; lb < slowMaxLookback; lb++ {
		for _, factor := range []float64{1.01, 1.25, 2, 10} {
			c := controller{staleAfter: time.Minute, step: 1, factor: factor, mult: true, tolerance: float64(rng.IntN(5)),
				kind: ControllerSlowStart, lookback: lb, minute: 6, quotaProbe: 1}
			c.probe = math.Pow(c.factor, 1/float64(c.lookback))
			for range 2000 {
				maxL := []int{1, 2, 10, 10000, math.MaxInt32}[rng.IntN(5)]
				minL := 1 + rng.IntN(maxL)
				limit := minL + rng.IntN(maxL-minL+1)
				ls := limitState{limit: limit, target: float64(rng.IntN(50)), minL: minL, maxL: maxL,
					rival: rivalState{fl: float64(limit) + rng.Float64() - 0.5}}
				ls.rival.ss.empty = []int{0, rng.IntN(40), rng.IntN(1 << 20), math.MaxInt32}[rng.IntN(4)]
				for range rng.IntN(20) {
					ls.rival.ss.hist.record(minL + rng.IntN(maxL-minL+1))
				}
				in := signals{now: now, running: rng.IntN(2 * limit), binding: rng.IntN(2) == 0, quotaProbe: 1,
					depth: []float64{0, 0.5, 0.999, 1, float64(rng.IntN(60))}[rng.IntN(5)]}
				fast, ref := cloneState(ls), cloneState(ls)
				infast, inref := in, in
				want, dir := c.propose(&fast, &infast)
				c.apply(&fast, want, dir, &infast)
				want, dir = slowStartStepRef(&c, &ref, &inref)
				c.apply(&ref, want, dir, &inref)
				if !sameState(fast, ref) {
					t.Fatalf("lookback %d factor %g, %+v with %+v:\n got %+v\nwant %+v", lb, factor, ls, in, fast, ref)
				}
			}
		}
	}
}

// sameState compares two limit states, their real-valued limits bit for
// bit (a probe that overflows makes a NaN) and their rings by the values
// they hold, wherever those are.
func sameState(a, b limitState) bool {
	if math.Float64bits(a.rival.fl) != math.Float64bits(b.rival.fl) ||
		!sameRing(&a.ran, &b.ran) || !sameRing(&a.rival.ss.hist, &b.rival.ss.hist) {
		return false
	}
	a.rival.fl, b.rival.fl = 0, 0
	a.ran, b.ran, a.rival.ss.hist, b.rival.ss.hist = tickRing{}, tickRing{}, tickRing{}, tickRing{}
	return a == b
}

// sameRing compares two rings' counts, sums and the values they keep.
func sameRing(a, b *tickRing) bool {
	if a.n != b.n || a.sum != b.sum || a.k != b.k {
		return false
	}
	for i := max(0, a.n-slowMaxLookback); i < a.n; i++ {
		if a.at(i) != b.at(i) {
			return false
		}
	}
	return true
}

// cloneState is ls with rings of its own: a copy of a limitState shares
// its rings' tiles.
func cloneState(ls limitState) limitState {
	ls.ran, ls.rival.ss.hist = cloneRing(ls.ran), cloneRing(ls.rival.ss.hist)
	return ls
}

func cloneRing(r tickRing) tickRing {
	if r.t == nil {
		return r
	}
	c := r
	c.t, c.col = new(tickTile), 0
	for s := range slowMaxLookback {
		c.t[s][0] = r.t[s][r.col]
	}
	return c
}

// TestOnlyLatencyReadersReadLatency: a controller kind that
// readsLatencySignals says does not read the latency and 429 signals ends
// every tick in the state it would have reached with them, so control may
// leave them unread.
func TestOnlyLatencyReadersReadLatency(t *testing.T) {
	for _, kind := range Controllers {
		t.Run(string(kind), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(3, 44))
			cfg := SchedulerConfig{Tick: 10 * time.Second, Controller: kind, Smoothing: 0.5}.WithDefaults()
			c := newController(cfg)
			ls := newLimitState(cfg.ForModel("m"))
			heard, deaf := cloneState(ls), cloneState(ls)
			now := time.Unix(1_700_000_000, 0)
			differ := false
			for range 5000 {
				now = now.Add(cfg.Tick)
				in := signals{now: now, running: rng.IntN(2 * heard.limit), binding: rng.IntN(3) > 0, quotaProbe: 1,
					latency: rng.Float64() * 30, latFresh: rng.IntN(2) == 0, new429: int64(rng.IntN(3) / 2)}
				depth := []int{0, rng.IntN(10), rng.IntN(100)}[rng.IntN(3)]
				in2 := in
				in2.latency, in2.latFresh, in2.new429 = 0, false, 0
				c.tick(&heard, depth, now, &in)
				c.tick(&deaf, depth, now, &in2)
				if !sameState(heard, deaf) {
					if !kind.readsLatencySignals() {
						t.Fatalf("%s reads the latency signals: with them %+v, without %+v", kind, heard, deaf)
					}
					differ = true
				}
			}
			if kind.readsLatencySignals() && !differ { // the test can tell
				t.Errorf("%s said to read the latency signals, but never moved on them", kind)
			}
		})
	}
}

// TestSlowIdleMatchesStep: a slowstart tick of a model with an empty queue
// and a limit that is not binding (the slowIdle shortcut) leaves its state
// as the step and apply do, over random limits, histories, empty runs and
// depths, binding or not, and fresh or stale readings.
func TestSlowIdleMatchesStep(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 44))
	now := time.Unix(1_700_000_000, 0)
	for lb := 1; lb < slowMaxLookback; lb++ {
		cfg := SchedulerConfig{Tick: 10 * time.Second, DeadTime: time.Duration(lb) * 10 * time.Second, Factor: 1.25}.WithDefaults()
		c := newController(cfg)
		if c.kind != ControllerSlowStart || c.lookback != lb {
			t.Fatalf("config gives %s with lookback %d, want slowstart with %d", c.kind, c.lookback, lb)
		}
		for range 2000 {
			maxL := []int{1, 2, 10, 10000, math.MaxInt32}[rng.IntN(5)]
			minL := 1 + rng.IntN(maxL)
			limit := minL + rng.IntN(maxL-minL+1)
			ls := limitState{limit: limit, target: float64(rng.IntN(50)), minL: minL, maxL: maxL,
				action: Action(rng.IntN(len(actionNames))), depth: float64(rng.IntN(9)),
				rival: rivalState{fl: float64(limit) + rng.Float64() - 0.5}}
			ls.rival.ss.empty = []int{0, rng.IntN(40), rng.IntN(1 << 20)}[rng.IntN(3)]
			for range rng.IntN(40) {
				ls.rival.ss.hist.record(minL + rng.IntN(maxL-minL+1))
			}
			depth := []int{0, 0, 1, rng.IntN(60)}[rng.IntN(4)]
			asOf := now.Add(-time.Duration(rng.IntN(3)) * cfg.StaleAfter / 2)
			in := signals{now: now, running: rng.IntN(2 * limit), binding: rng.IntN(2) == 0, quotaProbe: 1}
			fast, ref := cloneState(ls), cloneState(ls)
			infast, inref := in, in
			c.tick(&fast, depth, asOf, &infast)
			if fresh := now.Sub(asOf) <= c.staleAfter; !fresh {
				ref.action = ActionStale
			} else {
				ref.depth, inref.depth = float64(depth), float64(depth)
				want, dir := c.propose(&ref, &inref)
				c.apply(&ref, want, dir, &inref)
			}
			if !sameState(fast, ref) {
				t.Fatalf("lookback %d, depth %d, %+v with %+v:\n got %+v\nwant %+v", lb, depth, ls, in, fast, ref)
			}
		}
	}
}

// rejectingState is a fakeState that offers the quota signal: the given
// 429s, and empty quota windows.
type rejectingState struct {
	*fakeState
	rejected []int
}

func (r rejectingState) Quota(ModelID) QuotaReading { return QuotaReading{} }
func (r rejectingState) Rejections(m ModelID) int   { return r.rejected[m] }

// TestControlIdlePathMatchesTick: control, which steps an idle slowstart
// model (fresh reading, empty queue, limit not binding) by slowIdle alone
// (tick's front, written out, its staleness memo's time compared once a
// tick), leaves every model's limit and controller state as tick's whole
// rule (the reference: the same scheduler with c.idle off), over random
// running counts, depths, stale or missing readings, readings repeated
// over ticks (fresh, then stale), pools, 429s and waiting jobs, with and
// without smoothing.
func TestControlIdlePathMatchesTick(t *testing.T) {
	const models = 40
	names := make([]string, models)
	for i := range names {
		names[i] = fmt.Sprintf("m%d", i)
	}
	for _, smoothing := range []float64{0, 0.5} {
		for _, quota := range []bool{false, true} {
			cfg := SchedulerConfig{Tick: 10 * time.Second, Smoothing: smoothing}
			fast, err := NewScheduler(cfg, names)
			if err != nil {
				t.Fatal(err)
			}
			ref, _ := NewScheduler(cfg, names)
			ref.ctl.idle = false // every step through stepRule
			rng := rand.New(rand.NewPCG(7, 44))
			fs := newFakeState(models, 100)
			rej := make([]int, models)
			now, id := time.Unix(1_700_000_000, 0), JobID(0)
			for step := range 600 {
				now = now.Add(cfg.Tick)
				for range rng.IntN(4) {
					id++
					j := Job{ID: id, Account: "a", Project: "p", Model: ModelID(rng.IntN(models))}
					fast.Enqueue(now, j)
					ref.Enqueue(now, j)
				}
				for m := range models {
					fs.running[m] = rng.IntN(4)
					fs.depth[m] = []int{0, 0, 0, -1, rng.IntN(40)}[rng.IntN(5)]
					fs.asOf[m] = []time.Time{now, now, now, now.Add(-5 * time.Minute), {}, now.Truncate(time.Minute)}[rng.IntN(6)]
					rej[m] = []int{0, 0, 0, 0, 1, 3}[rng.IntN(6)]
				}
				var state State = fs
				if quota {
					state = rejectingState{fakeState: fs, rejected: rej}
				}
				containers := rng.IntN(60)
				fast.control(now, state, containers)
				ref.control(now, state, containers)
				for m := range models {
					a, b := fast.models[m].limitState, ref.models[m].limitState
					if !sameState(a, b) || fast.limits[m] != ref.limits[m] {
						t.Fatalf("smoothing %g, quota %v, step %d, model %d:\n got %+v\nwant %+v", smoothing, quota, step, m, a, b)
					}
				}
			}
		}
	}
}

// TestHoldsIsHalfLife: control's configuration test for the job rate hold
// answers as every model's own half-life does.
func TestHoldsIsHalfLife(t *testing.T) {
	for _, hold := range []time.Duration{0, time.Nanosecond, 5 * time.Minute} {
		s, err := NewScheduler(SchedulerConfig{Tick: 10 * time.Second, JobRateHold: hold}, []string{"a", "b", "c"})
		if err != nil {
			t.Fatal(err)
		}
		for m := range s.models {
			if got, want := s.ctl.holds, s.models[m].hold.halfLife > 0; got != want {
				t.Errorf("job_rate_hold %v, model %d: holds %v, its half-life says %v", hold, m, got, want)
			}
		}
	}
}

// signalState is a fakeState that offers the quota signal (the given 429s,
// windows of the given use) and the latency signals.
type signalState struct {
	*fakeState
	rejected []int
	use      []float64
	latency  []float64
	latAt    []time.Time
	throttle []int64
}

func (s signalState) Quota(m ModelID) QuotaReading {
	return QuotaReading{Use: [NumDims]float64{DimTPM: s.use[m]}, ModelUse: [NumDims]float64{DimTPM: s.use[m] / 2}}
}
func (s signalState) Rejections(m ModelID) int                   { return s.rejected[m] }
func (s signalState) CallLatency(m ModelID) (float64, time.Time) { return s.latency[m], s.latAt[m] }
func (s signalState) Throttled(m ModelID) int64                  { return s.throttle[m] }

// controlRef is control as a model's step is specified: every model's
// signals built afresh, then tick.
func controlRef(s *Scheduler, now time.Time, state State, containers int) {
	c := &s.ctl
	fillable := 0
	for i := range s.models {
		m := &s.models[i]
		m.running = state.Running(ModelID(i))
		fillable += min(m.waiting, max(m.limit-m.running, 0))
	}
	spare := containers > fillable
	qs, quota := state.(QuotaState)
	lat, hears429 := state.(LatencySignals)
	quota = quota && c.quota && !(c.kind == ControllerInspect && hears429)
	for i := range s.models {
		m := &s.models[i]
		depth, asOf := state.GatewayDepth(ModelID(i))
		m.ran.record(m.running)
		in := signals{now: now, quotaProbe: c.quotaProbe, minute: c.minute, running: m.running, model: ModelID(i),
			binding: spare && m.waiting > max(m.limit-m.running, 0), ran: &m.ran}
		if quota {
			in.quota = qs
		}
		if m.hold.halfLife > 0 {
			in.hold = &m.hold
		}
		if lat != nil && c.kind.readsLatencySignals() {
			readSignals(lat, ModelID(i), &m.limitState, &in)
		}
		if quota {
			if n := qs.Rejections(ModelID(i)); n == 0 {
				m.rejTicks = 0
			} else if c.rejected(&m.limitState, n, m.running) {
				s.limits[i] = m.limit
				continue
			}
		}
		c.tick(&m.limitState, depth, asOf, &in)
		s.limits[i] = m.limit
	}
}

// TestControlMatchesRef: control, which fills a model's signals only as
// far as its step reads them, leaves every model's limit and controller
// state as controlRef does, for every controller kind, with and without
// the quota and latency signals and the job rate hold, over random
// running counts, depths, readings, latencies, 429s and waiting jobs.
func TestControlMatchesRef(t *testing.T) {
	const models = 12
	names := make([]string, models)
	for i := range names {
		names[i] = fmt.Sprintf("m%d", i)
	}
	for _, kind := range Controllers {
		for _, signalled := range []bool{false, true} {
			for _, hold := range []time.Duration{0, 5 * time.Minute} {
				cfg := SchedulerConfig{Tick: 10 * time.Second, Controller: kind, JobRateHold: hold}
				fast, err := NewScheduler(cfg, names)
				if err != nil {
					t.Fatal(err)
				}
				ref, _ := NewScheduler(cfg, names)
				rng := rand.New(rand.NewPCG(8, 44))
				fs := newFakeState(models, 100)
				ss := signalState{fakeState: fs, rejected: make([]int, models), use: make([]float64, models),
					latency: make([]float64, models), latAt: make([]time.Time, models), throttle: make([]int64, models)}
				now, id := time.Unix(1_700_000_000, 0), JobID(0)
				for step := range 300 {
					now = now.Add(cfg.Tick)
					for range rng.IntN(4) {
						id++
						j := Job{ID: id, Account: "a", Project: "p", Model: ModelID(rng.IntN(models))}
						fast.Enqueue(now, j)
						ref.Enqueue(now, j)
					}
					for m := range models {
						fs.running[m] = rng.IntN(6)
						fs.depth[m] = []int{0, 0, 0, -1, rng.IntN(40)}[rng.IntN(5)]
						fs.asOf[m] = []time.Time{now, now, now, now.Add(-5 * time.Minute), {}, now.Truncate(time.Minute)}[rng.IntN(6)]
						ss.rejected[m] = []int{0, 0, 0, 0, 1, 3}[rng.IntN(6)]
						ss.use[m] = rng.Float64()
						ss.latency[m] = []float64{0, rng.Float64() * 30}[rng.IntN(2)]
						ss.latAt[m] = []time.Time{{}, now, now.Add(-time.Minute)}[rng.IntN(3)]
						ss.throttle[m] += int64(rng.IntN(3) / 2)
					}
					var state State = fs
					if signalled {
						state = ss
					}
					containers := rng.IntN(60)
					fast.control(now, state, containers)
					controlRef(ref, now, state, containers)
					for m := range models {
						a, b := fast.models[m].limitState, ref.models[m].limitState
						if !sameState(a, b) || fast.limits[m] != ref.limits[m] {
							t.Fatalf("%s, signalled %v, hold %v, step %d, model %d:\n got %+v\nwant %+v", kind, signalled, hold, step, m, a, b)
						}
					}
				}
			}
		}
	}
}
