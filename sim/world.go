package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/evalsched/lab/policies"
	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/scenario"
	"github.com/evalsched/lab/workloads"
)

// Event kinds the world schedules on the engine.
const (
	evArrival EventKind = iota + 1
	evTick
	evSample
	evDepthSample
	evContainerReady // A: job slot
	evCallDone       // A: call slot
	evRetry          // A: call slot
	evToolDone       // A: job slot
	evCapacity       // A: scenario event index
	evProduction     // A: production stream index
	evPace           // A: model whose pacing key may allow a call again
	evStaleStart     // A: gateway.stale spell index
	evBatchDone      // A: batch request slot
)

// Epoch is the wall-clock instant virtual time zero maps to when a policy is
// asked for a decision. Policies only ever compare times, so any fixed instant
// works; a fixed one keeps runs reproducible.
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Options are the inputs of one run besides the scenario.
type Options struct {
	Seed   uint64
	Policy policies.Policy
	// Source replaces the scenario's generator (e.g. a replayed trace). Run
	// reads it on a goroutine of its own: nothing else may read it then.
	Source workloads.Source
	// Log keeps a record of every job and call event (tests check
	// conservation and quotas from it rather than from counters).
	Log bool
	// Progress, if set, is called every series sample with the virtual time.
	Progress func(now, end Time)
	// Variant, if set, names the run (Measured) after a scenario variant.
	Variant *scenario.Variant
	// Spans, if set, receives each job as it ends, with its calls and
	// tool steps (the --otlp output).
	Spans results.SpanSink
}

// World is one run: the engine, the simulated system and the policy driving
// it. It wires the parts together and dispatches events; each part is its
// own concern: jobs (jobs.go), calls (calls.go), the Gateway (gateway.go),
// the Provider (provider.go, quota.go), production traffic (production.go)
// and the recorder of measurements (recorder.go, fairness.go).
type World struct {
	// running first: a World is allocated whole, page-aligned, so the
	// running table's first records start a cache line
	// (TestJobRecordsStartCacheLines).
	running slots[jobState]

	sc     *scenario.Scenario
	eng    *Engine
	pol    policies.Policy
	trig   policies.Trigger
	opts   Options
	source workloads.Source
	pf     *workloads.Prefetched // source read ahead (Run): pull calls it directly, not through the interface
	// The next arrival's job, where it lies in pf's block (no copy of a
	// job per arrival): it stays there while pull fetches the one after.
	next  *workloads.Job
	grade workloads.Job // the grading job a finish chains
	wall  wallClock     // the instants policies are given (wallNow)
	// timeFree: the policy reads no instant it is given (policies'
	// TimeFree), so wallNow gives it the zero time without building one.
	timeFree bool

	agentSrc *rand.PCG // reseeded per job turn (see workloads.Agent)

	gw     Gateway
	prov   Provider
	prod   []productionStream
	rec    recorder
	alerts alerts
	tr     *tracer   // nil unless Options.Spans
	log    *eventLog // nil unless Options.Log
	others bool      // tr or log is set: the emitters build an obs for them

	// Jobs and calls live in slot tables that only grow. A job waits in
	// jobs and moves to running (above) when it takes a container: running
	// holds at most the containers' jobs, densely, so the job state touched
	// on every event stays in cache however many millions wait.
	jobs   slots[waitingJob]
	byID   jobIndex // waiting job → its slot in jobs
	nextID policies.JobID
	ids    identity    // accounts, projects and batches of the jobs
	load   []modelJobs // per model
	calls  []callState
	freeC  []int32
	serial int64
	// The batch lane (batch.go): pools, each model's pool (noBatchPool: none),
	// and the request table.
	batch     []batchPool
	batchOf   []int32
	batchReqs []batchReq
	freeB     []int32

	containersUsed int
	plan           policies.Plan
	limits         []int // the policy's running-job limit per model, -1: none
	peers          []int // orgPeers' buffer

	// fallible is pol when it can fail (policies.Fallible), checked after
	// every decision.
	fallible policies.Fallible

	windowStart, end Time
	err              error
}

// NewWorld builds a run of the scenario under the policy.
func NewWorld(sc *scenario.Scenario, opts Options) (*World, error) {
	if opts.Policy == nil {
		return nil, fmt.Errorf("no policy")
	}
	cfgs := sc.ModelConfigs()
	eng := NewEngine()
	w := &World{
		sc: sc, eng: eng, pol: opts.Policy, trig: opts.Policy.Trigger(), opts: opts,
		agentSrc:    rand.NewPCG(0, 0),
		gw:          newGateway(&sc.Gateway, cfgs, opts.Seed),
		prov:        newProvider(sc, cfgs),
		rec:         newRecorder(sc, eng),
		ids:         newIdentity(),
		load:        make([]modelJobs, len(cfgs)),
		limits:      make([]int, len(cfgs)),
		windowStart: FromDuration(sc.Warmup),
		end:         FromDuration(sc.Duration),
		wall:        newWallClock(),
	}
	w.rec.ids = &w.ids
	for i := range w.limits {
		w.limits[i] = int(results.NoLimit)
		w.emit(&obs{kind: obsStreams, model: int32(i), n: int32(w.prov.models[i].streams)})
	}
	w.batch, w.batchOf = newBatchPools(sc, &w.prov, opts.Seed)
	w.fallible, _ = opts.Policy.(policies.Fallible)
	if p, ok := opts.Policy.(policies.TimeFree); ok {
		w.timeFree = p.TimeFree()
	}
	if opts.Spans != nil {
		w.tr = &tracer{sink: opts.Spans}
	}
	if opts.Log {
		w.log = &eventLog{}
	}
	w.others = w.tr != nil || w.log != nil
	w.alerts = newAlerts(sc, &w.prov)
	w.source = opts.Source
	if w.source == nil {
		gen, err := workloads.NewGenerator(sc.Workload, sc.Catalogue(), sc.Duration, opts.Seed)
		if err != nil {
			return nil, fmt.Errorf("%s: workload: %w", sc.File(), err)
		}
		w.source = gen
	}
	if u, ok := w.source.(interface{ UniqueBatches() bool }); ok {
		w.ids.uniqueNames = u.UniqueBatches()
	}
	return w, nil
}

// Run simulates the scenario to its end. An error of the job source or of a
// production trace, even one found mid-run, is returned.
func (w *World) Run() error {
	// The job stream is read a block ahead on a goroutine of its own: the
	// same jobs in the same order (a generator has its own random stream, a
	// trace is read in order), made (drawn, parsed) beside the event loop
	// rather than inside it.
	w.pf = workloads.Prefetch(w.source)
	w.source = w.pf
	defer w.pf.Close()
	w.pull()
	err := w.openProduction()
	if err == nil {
		err = w.run()
	}
	if cerr := w.closeProduction(); err == nil {
		err = cerr
	}
	return err
}

func (w *World) run() error {
	if w.trig.Tick > 0 {
		w.eng.post(0, evTick, 0)
	}
	w.eng.post(0, evSample, 0)
	if w.sc.Gateway.DepthDelay > 0 {
		w.eng.post(0, evDepthSample, 0)
	}
	for i, e := range w.sc.Events {
		w.eng.post(FromDuration(e.At), evCapacity, int32(i))
	}
	for i, s := range w.sc.Gateway.Stale {
		w.eng.post(FromDuration(s.From), evStaleStart, int32(i))
	}
	maxEvents := w.sc.RunBudget.MaxEvents
	if maxEvents == 0 {
		maxEvents = math.MaxUint64
	}
	// Below stop no budget check is due (runStop): events take the short way.
	memory := w.sc.RunBudget.MaxMemory > 0
	stop := runStop(w.eng.processed, maxEvents, memory)
	for w.err == nil {
		if ev, ok := w.eng.popBefore(w.end, stop); ok {
			w.Handle(ev)
			continue
		}
		at, ok := w.eng.PeekTime()
		if !ok || at > w.end {
			break
		}
		if w.eng.processed >= maxEvents {
			w.err = &scenario.BudgetError{What: "events", Size: float64(w.eng.processed), Limit: float64(maxEvents),
				Running: true, At: w.now().Duration(), Flag: "--max-events", Details: fmt.Sprintf("%d calls created, %d tries", w.rec.counts.CallsCreated, w.rec.counts.Tries)}
			break
		}
		if w.eng.processed&memoryCheckMask == 0 && w.sc.RunBudget.MaxMemory > 0 {
			if live := liveHeap(); live > w.sc.RunBudget.MaxMemory {
				w.err = &scenario.BudgetError{What: "bytes of memory", Size: float64(live), Limit: float64(w.sc.RunBudget.MaxMemory),
					Running: true, At: w.now().Duration(), Flag: "--max-memory", Details: fmt.Sprintf("the process's live heap after %d events", w.eng.processed)}
				break
			}
		}
		w.Handle(w.eng.popPeeked())
		stop = runStop(w.eng.processed, maxEvents, memory)
	}
	if w.err != nil {
		return w.err
	}
	if err := w.source.Err(); err != nil {
		return err
	}
	// Bring the integrals up to the end of the window.
	w.eng.RunUntil(w.end, w)
	w.rec.flush()
	w.sampleTail()
	return nil
}

// Handle dispatches one event.
func (w *World) Handle(ev Event) {
	switch ev.Kind {
	case evArrival:
		job := w.next // where it lies in the source's block, which keeps
		// it while pull fetches the next one (Prefetched.NextPtr)
		w.pull()
		w.arrive(job, false)
		if w.trig.OnEvent {
			w.decide()
		}
	case evTick:
		w.decide()
		w.eng.postAfter(FromDuration(w.trig.Tick), evTick, 0)
	case evSample:
		w.sample()
		w.observeAlerts()
		w.eng.postAfter(FromDuration(w.sc.SeriesInterval), evSample, 0)
	case evDepthSample:
		w.gw.sampleDepth(w.now())
		w.eng.postAfter(FromDuration(w.sc.Gateway.DepthSample), evDepthSample, 0)
	case evContainerReady:
		w.containerReady(ev.A)
	case evCallDone:
		w.callDone(ev.A)
	case evRetry:
		w.retry(ev.A)
	case evProduction:
		w.productionArrival(ev.A)
	case evPace:
		w.gw.lanes[ev.A].paceArmed = false
		w.dispatch(ev.A)
	case evToolDone:
		w.nextTurn(ev.A)
	case evCapacity:
		w.capacityChange(int(ev.A))
	case evStaleStart:
		w.gw.staleStart(w.now())
	case evBatchDone:
		w.batchDone(ev.A)
	default:
		panic(fmt.Sprintf("sim: unknown event kind %d", ev.Kind))
	}
}

func (w *World) now() Time { return w.eng.Now() }

// wallNow is w.now().Wall(), the instant a policy is given (its calls'
// time and a job's arrival), or the zero time for a policy that reads
// neither (timeFree): building an instant costs more than the rest of
// an unloaded fixed-lane decision.
func (w *World) wallNow() time.Time {
	if w.timeFree {
		return time.Time{}
	}
	return w.wall.of(w.now())
}

// capacityChange applies a scenario event to a provider, then lets waiting
// calls onto any streams it freed.
func (w *World) capacityChange(i int) {
	e := w.sc.Events[i]
	for k := range w.prov.models {
		d := &w.prov.models[k]
		if d.cfg.Name != e.Model {
			continue
		}
		d.apply(e)
		w.emit(&obs{kind: obsStreams, model: int32(k), n: int32(d.streams)})
		w.serveWaiting(int32(k))
		w.dispatch(int32(k))
	}
}

// GatewayDepth implements policies.State: the newest reading at least
// depth_delay old, as a lagging metrics pipeline would serve it.
func (w *World) GatewayDepth(model policies.ModelID) (int, time.Time) {
	now := w.now()
	if d, at, ok := w.gw.stampedReading(int32(model), now); ok {
		return d, at
	}
	return w.gw.reading(int32(model), now)
}

// Census lists, from the world's job and call tables, what is still in the
// system: jobs waiting, starting and running, calls queued, backing off and
// at a provider (call serials).
type Census struct {
	JobsWaiting, JobsStarting, JobsRunning   []policies.JobID
	CallsQueued, CallsBackoff, CallsProvider []int64
}

// Census walks the job and call tables (not the counters) at the end of a run.
func (w *World) Census() Census {
	var c Census
	w.byID.each(func(id policies.JobID, _ int32) { c.JobsWaiting = append(c.JobsWaiting, id) })
	for slot := int32(0); slot < w.running.n; slot++ {
		switch j := w.running.at(slot); j.phase {
		case jobWaiting: // a free slot: a job in run has left the waiting phase
		case jobStarting:
			c.JobsStarting = append(c.JobsStarting, j.id)
		default:
			c.JobsRunning = append(c.JobsRunning, j.id)
		}
	}
	freeCall := map[int32]bool{}
	for _, f := range w.freeC {
		freeCall[f] = true
	}
	for i := range w.calls {
		if freeCall[int32(i)] {
			continue
		}
		switch cs := &w.calls[i]; cs.phase {
		case callQueued:
			c.CallsQueued = append(c.CallsQueued, cs.serial)
		case callBackoff:
			c.CallsBackoff = append(c.CallsBackoff, cs.serial)
		default:
			c.CallsProvider = append(c.CallsProvider, cs.serial)
		}
	}
	return c
}

// Now is the virtual clock.
func (w *World) Now() Time { return w.now() }

// EventsProcessed is the number of engine events dispatched.
func (w *World) EventsProcessed() uint64 { return w.eng.Processed() }

// takeSlot reuses a freed slot of a table, or grows the table by one; the
// tables only grow, so a run's steady state allocates nothing here.
func takeSlot[T any](table *[]T, free *[]int32) int32 {
	if n := len(*free); n > 0 {
		slot := (*free)[n-1]
		*free = (*free)[:n-1]
		return slot
	}
	var zero T
	*table = append(*table, zero)
	return int32(len(*table) - 1)
}
