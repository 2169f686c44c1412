package sim

import (
	"math"
	"math/rand/v2"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/evalsched/lab/workloads"
)

// A job's agent draws (its turns, each turn's calls with their tokens and
// latency factor, and the tool step after each turn) are a pure function
// of its behaviour and seed: workloads.Agent reseeds its generator from the
// job's seed at every turn, and a model's latency jitter never changes
// during a run. So they need not be drawn on the run's goroutine at the
// moment the job reaches each turn. When a job takes a container, its first
// calls (up to Options.DrawAhead) are drawn on a helper goroutine while the
// container starts; the job reads them from its drawn trajectory, and
// draws any turns past that inline, from the agent state the helper left.
// The values, and their order within the job, are the same either way, so
// outputs are byte-identical with the helper, without it, and for any
// DrawAhead (TestDrawAheadIdentical); the helper only moves about a quarter
// of a long run's work (the lognormal draws, the jitter quantiles) onto the
// second core.

// defaultDrawAhead is how many calls of a job are drawn ahead when it
// starts: about ten times a studio-week job's, so nearly every job is drawn
// whole, while a job of thousands of calls holds at most this many (16
// bytes each) per container.
const defaultDrawAhead = 256

// drawBatch is how many started jobs go to the helper at a time: each send
// may wake the helper goroutine, so they go in small batches rather than
// one by one.
const drawBatch = 8

// Trajectory states. The run's goroutine moves a trajectory from idle to
// batched (in its unsent batch) to sent; the helper claims a sent one
// (drawing) and marks it drawn; the run's goroutine may instead claim a
// batched or sent one itself (inline) when the job needs it first.
const (
	trajIdle uint32 = iota
	trajBatched
	trajSent
	trajDrawing
	trajDrawn
	trajInline
)

// drawRec is one record of a drawn trajectory: a turn (calls, the number
// of calls that follow it; v, its tool step in nanoseconds) or one of its
// calls (in and out tokens; v, the bits of its latency factor). A turn and
// its calls are consecutive, so the job reads them as a few cache lines the
// helper wrote, in order.
type drawRec struct {
	a, b int32
	v    uint64
}

// trajectory is the agent draws of the job in one running slot, written by
// whoever draws it (the helper between claiming it and marking it drawn,
// else the run's goroutine). The job's cursor into recs is in its jobState.
type trajectory struct {
	behaviour *workloads.Behaviour
	seed      uint64
	jitter    *latencyJitter
	agent     workloads.Agent // the agent after the drawn turns
	recs      []drawRec
	complete  bool // the drawn turns are all the job's turns
	state     atomic.Uint32
}

// draw draws the job's first turns, as long as their calls fit in budget.
func (t *trajectory) draw(src *rand.PCG, budget int) {
	t.recs, t.complete = t.recs[:0], false
	t.agent.Start(t.behaviour, t.seed, src)
	calls := 0
	for {
		before := t.agent
		n, ok := t.agent.NextTurn(src)
		if !ok {
			t.complete = true
			return
		}
		if calls += n; calls > budget {
			t.agent = before // this turn is drawn when the job reaches it
			return
		}
		turn := len(t.recs)
		t.recs = append(t.recs, drawRec{a: int32(n)})
		for range n {
			in, out, u := t.agent.NextCall(src)
			t.recs = append(t.recs, drawRec{a: int32(in), b: int32(out), v: math.Float64bits(t.jitter.factor(u))})
		}
		t.recs[turn].v = uint64(t.agent.EndTurn(src))
	}
}

// runsInFlight counts the runs simulating in this process. A run keeps a
// helper only while fewer runs than cores are in flight: when every core
// has a run of its own (sim compare's two runs at first, --seeds, sweeps),
// a helper would only take turns with them, so the run draws inline; when a
// core is spare (a single run, the longer run of a pair once the other
// ended), its helper takes the draws there.
var runsInFlight atomic.Int32

// drawer hands started jobs' trajectories to the helper goroutine, or
// draws them on the run's goroutine when there is none.
type drawer struct {
	budget int
	cores  int32     // the helper may run while runsInFlight < cores; 0: never
	src    *rand.PCG // the run's goroutine's generator (the helper has its own)
	table  []*trajectory
	batch  []*trajectory
	work   chan []*trajectory // to the helper; nil while there is none
	spare  chan []*trajectory // batches the helper is done with
	done   chan struct{}
}

// newDrawer makes a run's drawer: budget calls drawn ahead per job (0: the
// default; negative: none), drawn where mode says.
func newDrawer(budget int, mode DrawMode) drawer {
	d := drawer{budget: budget, src: rand.NewPCG(0, 0), spare: make(chan []*trajectory, 2*drawQueue)}
	switch {
	case budget == 0:
		d.budget = defaultDrawAhead
	case budget < 0:
		d.budget = 0
	}
	switch cores := runtime.GOMAXPROCS(0); {
	case d.budget == 0 || mode == DrawInline:
	case mode == DrawHelper:
		d.cores = math.MaxInt32
	case cores > 1:
		d.cores = int32(cores)
	}
	return d
}

// drawQueue is how many batches may wait for the helper.
const drawQueue = 64

// adjust starts or stops the helper as a core becomes spare or busy.
func (d *drawer) adjust() {
	want := runsInFlight.Load() < d.cores
	switch {
	case want && d.work == nil:
		d.start()
	case !want && d.work != nil:
		d.stop()
	}
}

// start runs a helper goroutine.
func (d *drawer) start() {
	d.work, d.done = make(chan []*trajectory, drawQueue), make(chan struct{})
	go func(work <-chan []*trajectory, spare chan<- []*trajectory, done chan<- struct{}, budget int) {
		src := rand.NewPCG(0, 0)
		for batch := range work {
			for _, t := range batch {
				if t.state.CompareAndSwap(trajSent, trajDrawing) {
					t.draw(src, budget)
					t.state.Store(trajDrawn)
				}
			}
			clear(batch)
			select {
			case spare <- batch[:0]:
			default:
			}
		}
		close(done)
	}(d.work, d.spare, d.done, d.budget)
}

// stop ends the helper goroutine, if there is one, and waits for it: every
// trajectory is then the run's goroutine's alone. Jobs in the unsent batch
// are drawn by ready.
func (d *drawer) stop() {
	if d.work == nil {
		return
	}
	for _, t := range d.batch {
		t.state.Store(trajIdle)
	}
	clear(d.batch)
	d.batch = d.batch[:0]
	close(d.work)
	<-d.done
	d.work, d.done = nil, nil
}

// at is the trajectory of a running slot.
func (d *drawer) at(slot int32) *trajectory {
	for int(slot) >= len(d.table) {
		d.table = append(d.table, &trajectory{})
	}
	return d.table[slot]
}

// started: the job in slot took a container; its draws may begin.
func (d *drawer) started(slot int32, behaviour *workloads.Behaviour, seed uint64, jitter *latencyJitter) {
	t := d.at(slot)
	if s := t.state.Load(); s != trajIdle {
		panic("sim: a started job's trajectory is still in use")
	}
	t.behaviour, t.seed, t.jitter = behaviour, seed, jitter
	if d.work == nil {
		return // drawn by ready
	}
	t.state.Store(trajBatched)
	d.batch = append(d.batch, t)
	if len(d.batch) >= drawBatch {
		d.flush()
	}
}

// flush sends the unsent batch to the helper.
func (d *drawer) flush() {
	if len(d.batch) == 0 {
		return
	}
	var out []*trajectory
	select {
	case out = <-d.spare:
	default:
		out = make([]*trajectory, 0, drawBatch)
	}
	for _, t := range d.batch {
		if t.state.CompareAndSwap(trajBatched, trajSent) { // not if ready took it
			out = append(out, t)
		}
	}
	clear(d.batch)
	d.batch = d.batch[:0]
	d.work <- out
}

// ready is the cursor of the job in slot when its container is ready, into
// its trajectory drawn by the helper (waited for if it is drawing), else
// drawn here.
func (d *drawer) ready(slot int32) jobDraws {
	t := d.table[slot]
	switch {
	case t.state.Load() == trajIdle: // no helper when it started
		t.draw(d.src, d.budget)
	case t.state.CompareAndSwap(trajBatched, trajInline):
		d.flush() // the rest of the batch has waited long enough
		t.draw(d.src, d.budget)
	case t.state.CompareAndSwap(trajSent, trajInline):
		t.draw(d.src, d.budget)
	default:
		for t.state.Load() != trajDrawn {
			runtime.Gosched() // the helper is drawing it
		}
	}
	return jobDraws{recs: t.recs, complete: t.complete, turn: -1}
}

// release: the job in slot ended; its trajectory may be reused. A job
// ends only after ready, so no helper is drawing it.
func (d *drawer) release(slot int32) {
	d.table[slot].state.Store(trajIdle)
}

// jobDraws is a running job's cursor into its trajectory, kept in its
// jobState (which every event of the job touches anyway).
type jobDraws struct {
	recs     []drawRec
	next     int32 // index in recs of the next drawn turn
	turn     int32 // index in recs of the current turn, -1 if drawn inline
	complete bool
}

// nextTurn starts the job's next turn: its number of calls, or ok false
// when the job has finished its last turn. Its calls come from call.
func (j *jobDraws) nextTurn(t *trajectory, src *rand.PCG) (n int, ok bool) {
	if int(j.next) < len(j.recs) {
		j.turn = j.next
		n = int(j.recs[j.turn].a)
		j.next += 1 + int32(n)
		return n, true
	}
	if j.complete {
		return 0, false
	}
	j.turn = -1
	return t.agent.NextTurn(src)
}

// call is the k-th call of the current turn, drawn ahead or now.
func (j *jobDraws) call(t *trajectory, src *rand.PCG, k int) (in, out int32, factor float64) {
	if j.turn >= 0 {
		c := &j.recs[int(j.turn)+1+k]
		return c.a, c.b, math.Float64frombits(c.v)
	}
	i, o, u := t.agent.NextCall(src)
	return int32(i), int32(o), t.jitter.factor(u)
}

// endTurn is the tool step after the current turn.
func (j *jobDraws) endTurn(t *trajectory, src *rand.PCG) time.Duration {
	if j.turn >= 0 {
		return time.Duration(j.recs[j.turn].v)
	}
	return t.agent.EndTurn(src)
}
