package policies

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"testing"
	"time"
)

// The shared test harness: a fake State, a scripted clock that advances one
// tick per step, helpers to enqueue and finish jobs, and a fluid provider for
// controller tests. It drives any Policy the way the simulator does.

// t0 is the start of every scripted run.
var t0 = time.Date(2025, 9, 30, 0, 0, 0, 0, time.UTC)

// fakeState is a State whose every figure the test sets.
type fakeState struct {
	running []int
	depth   []int
	asOf    []time.Time
	// containers is the pool's capacity; FreeContainers is what running jobs
	// leave of it, or fixedFree if that is set (>= 0).
	containers int
	fixedFree  int
}

func newFakeState(models, containers int) *fakeState {
	return &fakeState{
		running:    make([]int, models),
		depth:      make([]int, models),
		asOf:       make([]time.Time, models),
		containers: containers,
		fixedFree:  -1,
	}
}

func (f *fakeState) Running(m ModelID) int { return f.running[m] }
func (f *fakeState) GatewayDepth(m ModelID) (int, time.Time) {
	return f.depth[m], f.asOf[m]
}
func (f *fakeState) FreeContainers() int {
	if f.fixedFree >= 0 {
		return f.fixedFree
	}
	used := 0
	for _, r := range f.running {
		used += r
	}
	return max(f.containers-used, 0)
}

// fluidProvider is a model whose gateway depth is the calls its running jobs
// have outstanding beyond what the provider serves: each running job keeps
// callsPerJob calls in flight, the provider serves capacity at once, the rest
// queue. The limit that holds the depth at a target T is (capacity+T)/callsPerJob.
type fluidProvider struct {
	callsPerJob, capacity int
}

func (p fluidProvider) depth(running int) int {
	return max(p.callsPerJob*running-p.capacity, 0)
}

// settledLimit is the limit at which the depth equals the target, as a real.
func (p fluidProvider) settledLimit(target int) float64 {
	return float64(p.capacity+target) / float64(p.callsPerJob)
}

type harness struct {
	t      testing.TB
	pol    Policy
	st     *fakeState
	now    time.Time
	tick   time.Duration
	ticks  int // steps taken
	nextID JobID
	plan   Plan

	// duration, if > 0, finishes every job that many ticks after it starts.
	duration int
	// providers, where set, produce the model's depth each step, from the
	// jobs running during the last tick; depthLag makes the reading older.
	providers []*fluidProvider
	depthLag  time.Duration

	jobs      map[JobID]Job
	startTick map[JobID]int // tick at which each started job started
	finishAt  map[int][]JobID
	running   map[JobID]bool
	limitLog  [][]int // Plan.Limits after each step
}

func newHarness(t testing.TB, pol Policy, models, containers int) *harness {
	tick := pol.Trigger().Tick
	if tick == 0 {
		tick = 10 * time.Second
	}
	return &harness{
		t:         t,
		pol:       pol,
		st:        newFakeState(models, containers),
		now:       t0,
		tick:      tick,
		nextID:    1,
		providers: make([]*fluidProvider, models),
		jobs:      make(map[JobID]Job),
		startTick: make(map[JobID]int),
		finishAt:  make(map[int][]JobID),
		running:   make(map[JobID]bool),
	}
}

// newSchedulerHarness builds a Scheduler over models m0..m{n-1}.
func newSchedulerHarness(t testing.TB, cfg SchedulerConfig, models, containers int) (*harness, *Scheduler) {
	t.Helper()
	s, err := NewScheduler(cfg, modelNames(models))
	if err != nil {
		t.Fatalf("NewScheduler: %v", err)
	}
	return newHarness(t, s, models, containers), s
}

func modelNames(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("m%d", i)
	}
	return names
}

// enqueue adds n jobs shaped like tmpl (ID and, if zero, Arrival filled in)
// and returns their IDs.
func (h *harness) enqueue(n int, tmpl Job) []JobID {
	ids := make([]JobID, n)
	for i := range ids {
		j := tmpl
		j.ID = h.nextID
		h.nextID++
		if j.Arrival.IsZero() {
			j.Arrival = h.now
		}
		h.jobs[j.ID] = j
		h.pol.Enqueue(h.now, j)
		ids[i] = j.ID
	}
	return ids
}

// setDepth sets a model's gateway depth as read age ago.
func (h *harness) setDepth(m ModelID, depth int, age time.Duration) {
	h.st.depth[m] = depth
	h.st.asOf[m] = h.now.Add(-age)
}

// step runs one tick: provider depths are read from the jobs that ran during
// the last tick, jobs due finish, the policy decides, the chosen jobs start,
// and the clock moves on. It returns the jobs started.
func (h *harness) step() []JobID {
	h.t.Helper()
	for m, p := range h.providers {
		if p != nil {
			h.setDepth(ModelID(m), p.depth(h.st.running[m]), h.depthLag)
		}
	}
	h.finish(h.finishAt[h.ticks]...)
	delete(h.finishAt, h.ticks)
	h.plan.Reset()
	h.pol.Decide(h.now, h.st, &h.plan)
	started := append([]JobID(nil), h.plan.Start...)
	for _, id := range started {
		j, ok := h.jobs[id]
		if !ok {
			h.t.Fatalf("tick %d: policy started unknown job %d", h.ticks, id)
		}
		if _, dup := h.startTick[id]; dup {
			h.t.Fatalf("tick %d: policy started job %d twice", h.ticks, id)
		}
		h.startTick[id] = h.ticks
		h.running[id] = true
		h.st.running[j.Model]++
		if h.duration > 0 {
			at := h.ticks + h.duration
			h.finishAt[at] = append(h.finishAt[at], id)
		}
	}
	h.limitLog = append(h.limitLog, append([]int(nil), h.plan.Limits...))
	h.ticks++
	h.now = h.now.Add(h.tick)
	return started
}

// run takes n steps and returns the jobs started at each.
func (h *harness) run(n int) [][]JobID {
	out := make([][]JobID, n)
	for i := range out {
		out[i] = h.step()
	}
	return out
}

// finish ends running jobs.
func (h *harness) finish(ids ...JobID) {
	for _, id := range ids {
		if !h.running[id] {
			h.t.Fatalf("finish of job %d, which is not running", id)
		}
		delete(h.running, id)
		m := h.jobs[id].Model
		h.st.running[m]--
		h.pol.Finished(h.now, id, m)
	}
}

// finishAll ends every running job.
func (h *harness) finishAll() {
	for _, id := range slices.Sorted(maps.Keys(h.running)) {
		h.finish(id)
	}
}

// limit is a model's limit after a step (1-based: after the first step is 1).
func (h *harness) limitAfter(step int, m ModelID) int { return h.limitLog[step-1][m] }

// share returns count/total, or NaN for an empty total.
func share(count, total int) float64 {
	if total == 0 {
		return math.NaN()
	}
	return float64(count) / float64(total)
}
