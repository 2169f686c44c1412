package policies

import (
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/evalsched/lab/internal/reversal"
)

// The controller harness: scripted time, one model with an endless backlog
// of jobs that each last jobTicks ticks, and a fluid provider of known
// capacity. Each running job keeps callsPerJob calls outstanding; the
// provider serves capacity of them, the rest queue at the gateway, and the
// queue beyond throttleAt is rejected with 429s (counted, not queued). The
// latency of a call is service × (1 + depth / capacity) (Little's law on a
// fluid queue). The limit that holds the depth at target T is
// (capacity + T) / callsPerJob.
//
// The bake-off (bakeoff_test.go) adds optional faults, each off at its zero
// value: a quota below the capacity, calls lost beyond a queue (timed out,
// or failed fast into the latency mean), jobs already running at the start,
// a config tweak, and the quota signal of QuotaState.

type sigState struct {
	*fakeState
	latency float64
	latAsOf time.Time
	n429    int64
	// since the last Decide, for QuotaState (quotaSigState): tries and 429s
	tries, rejected int
}

func (s *sigState) CallLatency(ModelID) (float64, time.Time) { return s.latency, s.latAsOf }
func (s *sigState) Throttled(ModelID) int64                  { return s.n429 }

// quotaSigState is a sigState that also reports the quota signal
// (QuotaState), as the gateway does: the model's tries and 429s since the
// last Decide, all of them its own (one model, one key).
type quotaSigState struct{ *sigState }

func (q quotaSigState) Quota(ModelID) QuotaReading {
	return QuotaReading{Tries: q.tries, Rejected: q.rejected, AsOf: q.latAsOf}
}
func (q quotaSigState) Rejections(ModelID) int { return q.rejected }

// lossMode is what becomes of the calls beyond capacity + lossAt.
type lossMode int8

const (
	lossNone     lossMode = iota
	lossTimeout           // they time out: not queued, no 429, not in the latency mean
	lossFastFail          // they fail at once (no 429) and enter the latency mean at ~0 s
)

type fluidRun struct {
	callsPerJob, capacity, throttleAt int
	service                           float64
	jobTicks                          int
	lagTicks                          int  // ticks from a job's start to its first call
	spread                            int  // job lengths vary by ± this many ticks
	stale                             bool // freeze the readings (a stale metrics pipeline)

	// Optional faults (the bake-off); each is off at its zero value.
	quota       int      // calls in flight the key's quota admits; beyond: a 429 at once, backed off outside the depth
	quotaState  bool     // the State also implements QuotaState (quotaSigState)
	loss        lossMode // what becomes of the calls beyond capacity + lossAt
	lossAt      int
	initRunning int                    // jobs already running at tick 0, finishing evenly over the first jobTicks ticks
	tune        func(*SchedulerConfig) // changes the harness's config before the scheduler is built
}

// fluidOut is the provider's answer over one tick to the calls in flight.
type fluidOut struct {
	calls    int     // calls the running jobs keep in flight (one try each per tick)
	served   int     // calls at the provider
	room     int     // what the provider would serve: its capacity, or the quota if lower
	depth    int     // calls queued at the gateway
	rejected int     // tries refused with a 429
	dropped  int     // calls lost (loss), not 429s
	latency  float64 // the mean latency reported, seconds
}

// provide is the fluid provider's answer to calls in flight.
func (fr fluidRun) provide(calls int) fluidOut {
	o := fluidOut{calls: calls, room: fr.capacity}
	admitted := calls
	if fr.quota > 0 {
		o.room = min(fr.capacity, fr.quota)
		if calls > fr.quota {
			o.rejected, admitted = calls-fr.quota, fr.quota
		}
	}
	o.served = min(admitted, fr.capacity)
	depth := max(admitted-fr.capacity, 0)
	if fr.throttleAt > 0 && depth > fr.throttleAt {
		o.rejected += depth - fr.throttleAt
		depth = fr.throttleAt
	}
	if fr.loss != lossNone && depth > fr.lossAt {
		o.dropped, depth = depth-fr.lossAt, fr.lossAt
	}
	o.depth = depth
	o.latency = fr.service * (1 + float64(depth)/float64(max(fr.capacity, 1)))
	if fr.loss == lossFastFail && o.dropped > 0 {
		// a dropped call answers at once: it weighs ~0 s in the mean
		o.latency *= float64(o.served) / float64(o.served+o.dropped)
	}
	return o
}

type fluidLoop struct {
	fluidRun
	s       *Scheduler
	st      *sigState
	now     time.Time
	tick    int
	nextID  JobID
	ends    map[int]int // tick → jobs finishing then
	limits  []int
	running []int
	depths  []int
	starts  []int      // jobs started at each tick
	outs    []fluidOut // the provider's answer read at each tick (over the tick before)
}

func newFluidLoop(t *testing.T, kind ControllerKind, fr fluidRun) *fluidLoop {
	t.Helper()
	cfg := SchedulerConfig{Tick: 10 * time.Second, TargetDepth: 8, MaxLimit: 2000, Controller: kind,
		StepMode: StepMultiplicative, Factor: 1.25}
	if fr.tune != nil {
		fr.tune(&cfg)
	}
	s, err := NewScheduler(cfg, []string{"m0"})
	if err != nil {
		t.Fatal(err)
	}
	l := &fluidLoop{fluidRun: fr, s: s, st: &sigState{fakeState: newFakeState(1, 1<<20)}, now: t0,
		nextID: 1, ends: map[int]int{}}
	l.st.running[0] = fr.initRunning
	for i := range fr.initRunning {
		l.ends[1+i%max(fr.jobTicks, 1)]++
	}
	return l
}

// step reads the provider, finishes due jobs, keeps a backlog, decides, and
// starts what the plan says.
func (l *fluidLoop) step() {
	o := l.provide(l.calls())
	l.observe(o, o.rejected)
	l.decide(o)
}

// calls is the calls in flight of the running jobs (those started within
// the lag are not calling yet).
func (l *fluidLoop) calls() int {
	run := l.st.running[0]
	for k := max(0, l.tick-l.lagTicks); k < l.tick; k++ {
		run -= l.starts[k] // started within the lag: not calling yet
	}
	return l.callsPerJob * run
}

// observe takes the provider's answer into the readings: the 429s (rejected
// of them this loop's own) always, the depth and latency unless stale.
func (l *fluidLoop) observe(o fluidOut, rejected int) {
	l.st.n429 += int64(rejected)
	l.st.tries, l.st.rejected = o.calls, rejected
	if !l.stale {
		l.st.depth[0], l.st.asOf[0] = o.depth, l.now
		l.st.latency, l.st.latAsOf = o.latency, l.now
	}
}

// decide finishes due jobs, keeps a backlog, decides, starts what the plan
// says, and records the tick (o: the provider's answer read at it).
func (l *fluidLoop) decide(o fluidOut) {
	depth := o.depth
	l.st.running[0] -= l.ends[l.tick]
	for l.s.WaitingOn(0) < 4000 {
		l.s.Enqueue(l.now, Job{ID: l.nextID, Project: "p", Model: 0})
		l.nextID++
	}
	var plan Plan
	var st State = l.st
	if l.quotaState {
		st = quotaSigState{l.st}
	}
	l.s.Decide(l.now, st, &plan)
	l.st.running[0] += len(plan.Start)
	for k := range plan.Start {
		// with spread, job lengths cycle through jobTicks ± spread
		d := 0
		if l.spread > 0 {
			d = int(plan.Start[k])%(2*l.spread+1) - l.spread
		}
		l.ends[l.tick+l.jobTicks+d]++
	}
	l.starts = append(l.starts, len(plan.Start))
	l.limits = append(l.limits, plan.Limits[0])
	l.running = append(l.running, l.st.running[0])
	l.depths = append(l.depths, depth)
	l.outs = append(l.outs, o)
	l.tick++
	l.now = l.now.Add(10 * time.Second)
}

func (l *fluidLoop) run(n int) {
	for range n {
		l.step()
	}
}

// busy is the share of the provider's streams busy at tick k.
func (l *fluidLoop) busy(k int) float64 {
	return math.Min(float64(l.callsPerJob*l.running[k]), float64(l.capacity)) / float64(l.capacity)
}

// firstBusy is the first tick from `from` at which the provider is ≥ 95%
// busy, -1 if none.
func (l *fluidLoop) firstBusy(from int) int {
	for k := from; k < len(l.running); k++ {
		if l.busy(k) >= 0.95 {
			return k - from
		}
	}
	return -1
}

// reversalsPerHour counts the changes of direction of the limit over ticks
// [from, to), brute force: the sign of each nonzero move against the last.
func reversalsPerHour(limits []int, from, to int) float64 {
	n := reversal.Count(to-from, func(i int) int { return limits[from+i] })
	return float64(n) / (float64(to-from) * 10 / 3600)
}

var baseFluid = fluidRun{callsPerJob: 2, capacity: 200, throttleAt: 0, service: 20, jobTicks: 12}

// meanLimit is the mean limit over ticks [from, to).
func meanLimit(limits []int, from, to int) float64 {
	s := 0
	for _, v := range limits[from:to] {
		s += v
	}
	return float64(s) / float64(to-from)
}

// TestControllersFluid runs every controller on the fluid provider: ramp
// from the initial limit, settle, capacity halved at tick 400, restored at
// tick 600, readings frozen (stale) for 12 ticks at 800. The plain ×1.25
// step is the negative control: the same metric must say it cycles.
func TestControllersFluid(t *testing.T) {
	tests := []struct {
		kind         ControllerKind
		throttle     int     // queue beyond which calls get 429s; 0 = none
		capTicks     int     // ≥ 95% busy within this many ticks of the start
		cycles       bool    // expected to keep cycling (reversals/h ≥ cycleMin)
		revPerHour   float64 // otherwise: settled, reversals/h at most this
		recoverTicks int     // ≥ 95% busy within this many ticks of the recovery
	}{
		{kind: ControllerStep, capTicks: 15, cycles: true, recoverTicks: 5},
		{kind: ControllerSearch, capTicks: 15, revPerHour: 4, recoverTicks: 8},
		{kind: ControllerAIMD, capTicks: 100, revPerHour: 4, recoverTicks: 50},
		{kind: ControllerPI, capTicks: 170, revPerHour: 20, recoverTicks: 35},
		{kind: ControllerGradient, capTicks: 80, revPerHour: 4, recoverTicks: 8},
		// inspect_ai's rule learns the top only from a 429: a sawtooth.
		{kind: ControllerInspect, throttle: 40, capTicks: 8, cycles: true, recoverTicks: 10},
		{kind: ControllerBands, capTicks: 60, revPerHour: 4, recoverTicks: 15},
		{kind: ControllerDamped, capTicks: 30, revPerHour: 4, recoverTicks: 12},
		// ×1.25 per dead time of 3 ticks: from 4 to 104 in about
		// 3·ln(26)/ln(1.25) ≈ 44 ticks, a doubling in ≈ 9 (+3 to warm up)
		{kind: ControllerSlowStart, capTicks: 50, revPerHour: 4, recoverTicks: 15},
	}
	const cycleMin = 30
	for _, tc := range tests {
		t.Run(string(tc.kind), func(t *testing.T) {
			fr := baseFluid
			fr.throttleAt = tc.throttle
			l := newFluidLoop(t, tc.kind, fr)
			l.run(400)
			if got := l.firstBusy(0); got < 0 || got > tc.capTicks {
				t.Errorf("ticks to 95%% busy = %d, want 0..%d", got, tc.capTicks)
			}
			rev := reversalsPerHour(l.limits, 200, 400)
			switch {
			case tc.cycles && rev < cycleMin:
				t.Errorf("reversals/h = %.1f, want ≥ %d (it cycles)", rev, cycleMin)
			case !tc.cycles && rev > tc.revPerHour:
				t.Errorf("reversals/h = %.1f, want ≤ %g (settled)", rev, tc.revPerHour)
			}
			before := meanLimit(l.limits, 300, 400)
			l.capacity = 100
			l.run(200)
			if r := meanLimit(l.limits, 500, 600) / before; r < 0.4 || r > 0.65 {
				t.Errorf("limit after halving ÷ before = %.2f, want 0.4..0.65", r)
			}
			l.capacity = 200
			l.run(200)
			if got := l.firstBusy(600); got < 0 || got > tc.recoverTicks {
				t.Errorf("ticks to 95%% busy after recovery = %d, want 0..%d", got, tc.recoverTicks)
			}
			l.stale = true
			l.run(12)
			// stale_after is 3 ticks: from the 4th tick on the limit holds
			held := l.limits[803:812]
			for k, v := range held {
				if v != held[0] {
					t.Errorf("stale readings: limit moved %d → %d at tick %d", held[0], v, 803+k)
					break
				}
			}
		})
	}
}

// TestSlowStartDeadTime: on a provider whose jobs call only lagTicks after
// they start, the depth is news about the limit of lagTicks ago. The slow
// start, probing ×factor per dead time and backing off to the limit of a
// dead time before the first congestion, overshoots the settled running
// count by at most about one factor and then holds the limit in a ±10% band
// with the provider busy;
// the plain ×1.25-per-tick step (the negative control) overshoots by
// 1.25^(lag+1).
func TestSlowStartDeadTime(t *testing.T) {
	for _, lag := range []int{1, 2, 3} {
		fr := baseFluid
		fr.lagTicks, fr.spread = lag, 4
		// target 8; a share lag/jobTicks of the running jobs is not calling yet
		settled := float64(fr.capacity+8) / float64(fr.callsPerJob) / (1 - float64(lag)/float64(fr.jobTicks))
		peak := func(kind ControllerKind) (*fluidLoop, float64) {
			l := newFluidLoop(t, kind, fr)
			l.run(200)
			return l, float64(slices.Max(l.running)) / settled
		}
		t.Run(fmt.Sprintf("lag %d", lag), func(t *testing.T) {
			l, peakOver := peak(ControllerSlowStart)
			if peakOver > 1.25*1.1 {
				t.Errorf("slowstart: peak running ÷ settled = %.2f, want ≤ %.2f", peakOver, 1.25*1.1)
			}
			if _, stepOver := peak(ControllerStep); stepOver < math.Pow(1.25, float64(lag)) {
				t.Errorf("step (negative control): peak running ÷ settled = %.2f, want ≥ 1.25^%d", stepOver, lag)
			}
			first := l.firstBusy(0)
			if first < 0 || first > 60 {
				t.Fatalf("ticks to 95%% busy = %d, want 0..60", first)
			}
			// settled: the limit stays within ±10% of its median, and the
			// provider stays busy
			from := first + 2*l.jobTicks
			tail := slices.Clone(l.limits[from:])
			slices.Sort(tail)
			med, busy := float64(tail[len(tail)/2]), 0.0
			// the back-off: the limit is over its band only while the depth
			// lags (the probe's last dead time), not while the excess drains
			over := 0
			for _, v := range l.limits {
				if float64(v) > 1.1*med {
					over++
				}
			}
			if over > lag+2 {
				t.Errorf("limit above its band on %d ticks, want ≤ lag + 2 = %d", over, lag+2)
			}
			for k := from; k < len(l.limits); k++ {
				if r := float64(l.limits[k]) / med; r < 0.9 || r > 1.1 {
					t.Fatalf("tick %d: limit %d = %.2f × its median %v, want within ±10%%", k, l.limits[k], r, med)
				}
				busy += l.busy(k) / float64(len(l.limits)-from)
			}
			if busy < 0.9 {
				t.Errorf("mean busy share once settled = %.2f, want ≥ 0.9", busy)
			}
		})
	}
}
