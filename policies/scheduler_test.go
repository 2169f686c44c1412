package policies

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestSchedulerTrigger(t *testing.T) {
	s, err := NewScheduler(SchedulerConfig{Tick: 3 * time.Second}, []string{"a"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Trigger{Tick: 3 * time.Second}, s.Trigger()); diff != "" {
		t.Errorf("Trigger (-want +got):\n%s", diff)
	}
	if s.Name() != "scheduler" {
		t.Errorf("Name = %q", s.Name())
	}
}

// ---- Steady state and scale ----

// tickLoop is a self-contained steady-state workload without the harness's
// bookkeeping: 241 models behind fluid providers, many projects over three
// tiers, a deep backlog. Jobs run for a fixed number of ticks; every job that
// finishes is replaced by a new arrival, so the backlog stays level and, once
// the limits have settled, so does everything else.
type tickLoop struct {
	s       *Scheduler
	st      *fakeState
	plan    Plan
	now     time.Time
	n       int // ticks taken
	nextID  JobID
	models  int
	caps    []int     // provider capacity per model, in running jobs
	ring    [][]runAt // jobs by the tick (mod duration) they finish
	modelOf map[JobID]ModelID
	names   []string

	// measure counts the allocations of Decide alone into decideAllocs.
	measure      bool
	decideAllocs uint64
	ms           runtime.MemStats
}

type runAt struct {
	id JobID
	m  ModelID
}

func newTickLoop(tb testing.TB, waiting, projects, duration int) *tickLoop {
	const models = 241
	s, err := NewScheduler(SchedulerConfig{InitialLimit: 20}, modelNames(models))
	if err != nil {
		tb.Fatal(err)
	}
	l := &tickLoop{s: s, st: newFakeState(models, 1000000), now: t0, nextID: 1, models: models,
		modelOf: make(map[JobID]ModelID, waiting), ring: make([][]runAt, duration), caps: make([]int, models)}
	for m := range l.caps {
		l.caps[m] = 5 + (m*13)%40
	}
	l.names = make([]string, projects)
	for i := range l.names {
		l.names[i] = fmt.Sprintf("p%d", i)
	}
	for range waiting {
		l.add()
	}
	l.plan.Start = make([]JobID, 0, 20000)
	return l
}

func (l *tickLoop) add() {
	id := l.nextID
	l.nextID++
	// Skewed over models: low model numbers get most jobs.
	m := ModelID((id * id) % JobID(l.models) % JobID(1+id%JobID(l.models)))
	p := l.names[int(id*7919)%len(l.names)]
	l.s.Enqueue(l.now, Job{ID: id, Account: p, Project: p, Batch: "b", AccountTier: Tier(1 + id%3), Model: m, Arrival: l.now})
	l.modelOf[id] = m
}

func (l *tickLoop) tick() {
	l.arrive()
	l.decide()
}

// arrive finishes the jobs due now and enqueues as many new ones.
func (l *tickLoop) arrive() {
	slot := l.n % len(l.ring)
	for _, r := range l.ring[slot] {
		l.st.running[r.m]--
		l.s.Finished(l.now, r.id, r.m)
		delete(l.modelOf, r.id)
		l.add()
	}
	l.ring[slot] = l.ring[slot][:0]
}

func (l *tickLoop) decide() {
	for m := range l.models {
		l.st.depth[m] = max(l.st.running[m]-l.caps[m], 0)
		l.st.asOf[m] = l.now
	}
	l.plan.Reset()
	if l.measure {
		runtime.ReadMemStats(&l.ms)
		before := l.ms.Mallocs
		l.s.Decide(l.now, l.st, &l.plan)
		runtime.ReadMemStats(&l.ms)
		l.decideAllocs += l.ms.Mallocs - before
	} else {
		l.s.Decide(l.now, l.st, &l.plan)
	}
	slot := l.n % len(l.ring)
	for _, id := range l.plan.Start {
		m := l.modelOf[id]
		l.st.running[m]++
		l.ring[slot] = append(l.ring[slot], runAt{id, m})
	}
	l.now = l.now.Add(10 * time.Second)
	l.n++
}

func TestDecideSteadyStateAllocs(t *testing.T) {
	l := newTickLoop(t, 20000, 300, 30)
	for range 150 { // warm up: limits settle, pools and slabs reach their size
		l.tick()
	}
	const ticks = 50
	l.measure = true
	arrivals := 0
	for range ticks {
		arrivals += len(l.ring[l.n%len(l.ring)])
		l.tick()
	}
	if l.decideAllocs > 0 {
		t.Errorf("Decide allocated %d times over %d steady-state ticks, want 0", l.decideAllocs, ticks)
	}
	l.measure = false
	// Arrivals may still grow a lane's heap or a pool to a new high-water
	// mark now and then; report it.
	perTick := testing.AllocsPerRun(ticks, l.tick)
	t.Logf("steady state: Decide %d allocations in %d ticks; a whole tick with ~%d arrivals and the loop's own bookkeeping: %.1f",
		l.decideAllocs, ticks, arrivals/ticks, perTick)
}

// BenchmarkSchedulerTick times Decide alone on a steady backlog ("decide"),
// and a whole tick with its finishes and as many arrivals ("with-arrivals").
func BenchmarkSchedulerTick(b *testing.B) {
	for _, size := range []struct{ waiting, projects int }{{20000, 200}, {300000, 2000}} {
		for _, arrivals := range []bool{false, true} {
			name := fmt.Sprintf("waiting=%d/projects=%d/decide", size.waiting, size.projects)
			if arrivals {
				name = fmt.Sprintf("waiting=%d/projects=%d/with-arrivals", size.waiting, size.projects)
			}
			b.Run(name, func(b *testing.B) {
				l := newTickLoop(b, size.waiting, size.projects, 30)
				for range 150 {
					l.tick()
				}
				starts := 0
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					if !arrivals {
						b.StopTimer()
						l.arrive()
						b.StartTimer()
					} else {
						l.arrive()
					}
					l.decide()
					starts += len(l.plan.Start)
				}
				b.ReportMetric(float64(starts)/float64(b.N), "starts/tick")
			})
		}
	}
}

// TestSchedulerRandomized drives the scheduler with random arrivals (out of
// arrival order), finishes, re-tierings, depths and stale readings, and checks
// every decision against an oracle that keeps its own plain list of waiting
// jobs:
//   - every started job was waiting, and starts once;
//   - no model starts more than its free slots, nor all more than the free
//     containers;
//   - work conservation: if containers are left over, no model is left with
//     both a free slot and a waiting job (nothing eligible was missed);
//   - within a project in a tier, on a model, jobs start oldest first;
//   - waiting counts per model and per tier match the oracle's.
func TestSchedulerRandomized(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			randomizedRun(t, seed)
		})
	}
}

// randomizedRun is long because a step's arrivals, re-tierings, decision and
// oracle checks share the oracle's state; split up, they would pass it around.
func randomizedRun(t *testing.T, seed uint64) {
	const models, steps = 5, 600
	rng := rand.New(rand.NewPCG(seed, 99))
	cfg := SchedulerConfig{InitialLimit: 3, MaxLimit: 12, TierShare: 0.7}
	if seed%2 == 0 {
		// the reference step on even seeds, the default (slowstart) on odd ones
		cfg.StepMode, cfg.Smoothing, cfg.Controller = StepMultiplicative, 0.5, ControllerStep
	}
	containers := 30 // the pool binds often
	if seed > 2 {
		containers = 200 // the limits bind
	}
	h, s := newSchedulerHarness(t, cfg, models, containers)
	accounts := []string{"a", "b", "c"}
	projects := []string{"p", "q", "r", "s"}
	batches := []string{"x", "y"}
	type key3 = [3]string
	acctOv, projOv, batchOv := map[string]Tier{}, map[key3]Tier{}, map[key3]Tier{}
	tierOf := func(j Job) Tier {
		at, pt, bt := j.AccountTier, j.ProjectTier, j.BatchTier
		if v, ok := acctOv[j.Account]; ok {
			at = v
		}
		if v, ok := projOv[key3{j.Account, j.Project}]; ok {
			pt = v
		}
		if v, ok := batchOv[key3{j.Account, j.Project, j.Batch}]; ok {
			bt = v
		}
		// Priority passes down: the highest priority any level sets.
		best := Tier(0)
		for _, v := range []Tier{bt, pt, at} {
			if v != 0 && (best == 0 || v < best) {
				best = v
			}
		}
		if best == 0 {
			return 3
		}
		return best
	}
	waiting := map[JobID]Job{}
	older := func(a, b Job) bool {
		if !a.Arrival.Equal(b.Arrival) {
			return a.Arrival.Before(b.Arrival)
		}
		return a.ID < b.ID
	}
	peak, poolBound := 0, 0
	for step := range steps {
		// Arrivals, up to 100 s out of order: a backlog builds, then drains.
		n := rng.IntN(14)
		if step >= steps/2 {
			n = rng.IntN(3)
		}
		for range n {
			j := Job{
				Account: accounts[rng.IntN(3)], Project: projects[rng.IntN(4)], Batch: batches[rng.IntN(2)],
				AccountTier: Tier(rng.IntN(4)), ProjectTier: Tier(rng.IntN(3)) * Tier(rng.IntN(2)),
				BatchTier: Tier(rng.IntN(3)) * Tier(rng.IntN(2)), Model: ModelID(rng.IntN(models)),
				Arrival: h.now.Add(-time.Duration(rng.IntN(100)) * time.Second),
			}
			id := h.enqueue(1, j)[0]
			j.ID = id
			waiting[id] = j
		}
		// Operators re-tier now and then.
		if rng.IntN(20) == 0 {
			a, p, b, tier := accounts[rng.IntN(3)], projects[rng.IntN(4)], batches[rng.IntN(2)], Tier(rng.IntN(3))
			switch rng.IntN(3) {
			case 0:
				s.SetAccountTier(a, tier)
				setOverride(acctOv, a, tier)
			case 1:
				s.SetProjectTier(a, p, tier)
				setOverride(projOv, key3{a, p}, tier)
			case 2:
				s.SetBatchTier(a, p, b, tier)
				setOverride(batchOv, key3{a, p, b}, tier)
			}
		}
		// Random finishes, drawn in job order (not map order, which would
		// make the run differ from one go test to the next).
		for _, id := range slices.Sorted(maps.Keys(h.running)) {
			if rng.IntN(4) == 0 {
				h.finish(id)
			}
		}
		for m := range models {
			age := time.Duration(0)
			if rng.IntN(10) == 0 {
				age = time.Minute // stale
			}
			h.setDepth(ModelID(m), rng.IntN(16), age)
		}
		running := append([]int(nil), h.st.running...)
		freeC := h.st.FreeContainers()
		h.plan.Reset()
		s.Decide(h.now, h.st, &h.plan)
		startsM := make([]int, models)
		for _, id := range h.plan.Start {
			j, ok := waiting[id]
			if !ok {
				t.Fatalf("step %d: started job %d, which is not waiting", step, id)
			}
			delete(waiting, id)
			tier := tierOf(j)
			for _, k := range waiting {
				if k.Model == j.Model && k.Account == j.Account && k.Project == j.Project && tierOf(k) == tier && older(k, j) {
					t.Fatalf("step %d: started job %d (arrived %v) before older job %d (arrived %v) of its project",
						step, j.ID, j.Arrival, k.ID, k.Arrival)
				}
			}
			startsM[j.Model]++
			h.running[id] = true
			h.st.running[j.Model]++
		}
		if len(h.plan.Start) > freeC {
			t.Fatalf("step %d: started %d with %d free containers", step, len(h.plan.Start), freeC)
		}
		waitM := make([]int, models)
		waitT := map[Tier]int{}
		for _, j := range waiting {
			waitM[j.Model]++
			waitT[tierOf(j)]++
		}
		for m := range models {
			free := max(h.plan.Limits[m]-running[m], 0)
			if startsM[m] > free {
				t.Fatalf("step %d: model %d started %d with %d free slots", step, m, startsM[m], free)
			}
			if len(h.plan.Start) < freeC && waitM[m] > 0 && startsM[m] < free {
				t.Fatalf("step %d: model %d left %d free slots with %d jobs waiting and containers to spare",
					step, m, free-startsM[m], waitM[m])
			}
			if got := s.WaitingOn(ModelID(m)); got != waitM[m] {
				t.Fatalf("step %d: WaitingOn(%d) = %d, oracle %d", step, m, got, waitM[m])
			}
		}
		for tier := Tier(1); tier <= 3; tier++ {
			if got := s.WaitingInTier(tier); got != waitT[tier] {
				t.Fatalf("step %d: WaitingInTier(%d) = %d, oracle %d", step, tier, got, waitT[tier])
			}
		}
		if s.Waiting() != len(waiting) {
			t.Fatalf("step %d: Waiting = %d, oracle %d", step, s.Waiting(), len(waiting))
		}
		h.now = h.now.Add(h.tick)
		peak = max(peak, len(waiting))
		if len(h.plan.Start) == freeC && len(waiting) > 0 {
			poolBound++
		}
	}
	if peak < 50 || (containers == 30 && poolBound < 10) {
		t.Errorf("the run exercised too little: peak backlog %d, %d ticks with the pool exhausted", peak, poolBound)
	}
	t.Logf("peak backlog %d, pool exhausted on %d ticks, %d still waiting", peak, poolBound, len(waiting))
}
