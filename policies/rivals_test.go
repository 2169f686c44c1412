package policies

import (
	"fmt"
	"math"
	"slices"
	"testing"
	"time"
)

// The controller harness: scripted time, one model with an endless backlog
// of jobs that each last jobTicks ticks, and a fluid provider of known
// capacity. Each running job keeps callsPerJob calls outstanding; the
// provider serves capacity of them, the rest queue at the gateway, and the
// queue beyond throttleAt is rejected with 429s (counted, not queued). The
// latency of a call is service × (1 + depth / capacity) (Little's law on a
// fluid queue). The limit that holds the depth at target T is
// (capacity + T) / callsPerJob.

type sigState struct {
	*fakeState
	latency float64
	latAsOf time.Time
	n429    int64
}

func (s *sigState) CallLatency(ModelID) (float64, time.Time) { return s.latency, s.latAsOf }
func (s *sigState) Throttled(ModelID) int64                  { return s.n429 }

type fluidRun struct {
	callsPerJob, capacity, throttleAt int
	service                           float64
	jobTicks                          int
	lagTicks                          int  // ticks from a job's start to its first call
	spread                            int  // job lengths vary by ± this many ticks
	stale                             bool // freeze the readings (a stale metrics pipeline)
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
	starts  []int // jobs started at each tick
}

func newFluidLoop(t *testing.T, kind ControllerKind, fr fluidRun) *fluidLoop {
	t.Helper()
	cfg := SchedulerConfig{Tick: 10 * time.Second, TargetDepth: 8, MaxLimit: 2000, Controller: kind,
		StepMode: StepMultiplicative, Factor: 1.25}
	s, err := NewScheduler(cfg, []string{"m0"})
	if err != nil {
		t.Fatal(err)
	}
	return &fluidLoop{fluidRun: fr, s: s, st: &sigState{fakeState: newFakeState(1, 1<<20)}, now: t0,
		nextID: 1, ends: map[int]int{}}
}

// step reads the provider, finishes due jobs, keeps a backlog, decides, and
// starts what the plan says.
func (l *fluidLoop) step() {
	run := l.st.running[0]
	for k := max(0, l.tick-l.lagTicks); k < l.tick; k++ {
		run -= l.starts[k] // started within the lag: not calling yet
	}
	demand := l.callsPerJob * run
	depth := max(demand-l.capacity, 0)
	if l.throttleAt > 0 && depth > l.throttleAt {
		l.st.n429 += int64(depth - l.throttleAt)
		depth = l.throttleAt
	}
	if !l.stale {
		l.st.depth[0], l.st.asOf[0] = depth, l.now
		l.st.latency, l.st.latAsOf = l.service*(1+float64(depth)/float64(max(l.capacity, 1))), l.now
	}
	l.st.running[0] -= l.ends[l.tick]
	for l.s.WaitingOn(0) < 4000 {
		l.s.Enqueue(l.now, Job{ID: l.nextID, Project: "p", Model: 0})
		l.nextID++
	}
	var plan Plan
	l.s.Decide(l.now, l.st, &plan)
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
	n, last := 0, 0
	for k := from + 1; k < to; k++ {
		d := limits[k] - limits[k-1]
		if d == 0 {
			continue
		}
		dir := 1
		if d < 0 {
			dir = -1
		}
		if last != 0 && dir != last {
			n++
		}
		last = dir
	}
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
