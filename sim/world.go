package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/evalsched/lab/internal/ring"
	"github.com/evalsched/lab/policies"
	"github.com/evalsched/lab/results"
	"github.com/evalsched/lab/workloads"
	"gonum.org/v1/gonum/stat/distuv"
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
)

// Epoch is the wall-clock instant virtual time zero maps to when a policy is
// asked for a decision. Policies only ever compare times, so any fixed instant
// works; a fixed one keeps runs reproducible.
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Options are the inputs of one run besides the scenario.
type Options struct {
	Seed   uint64
	Policy policies.Policy
	// Source replaces the scenario's generator (e.g. a replayed trace).
	Source workloads.Source
	// Log keeps a record of every job and call event (tests check
	// conservation and quotas from it rather than from counters).
	Log bool
	// Progress, if set, is called every series sample with the virtual time.
	Progress func(now, end Time)
}

// LogRecord is one event in the life of a job or a call.
type LogRecord struct {
	T      Time
	Event  LogEvent
	Job    policies.JobID
	Call   int64 // serial number of the call, -1 for job events
	Model  int32
	Org    int32 // -1: no quotas
	Tokens int32 // input + output tokens of the call
	Try    int32 // 1 for a call's first try
	// Grading marks the arrival of a chained grading job.
	Grading bool
}

// LogEvent is what happened.
type LogEvent uint8

const (
	LogJobArrive LogEvent = iota
	LogJobStart
	LogJobFinish
	LogCallCreate
	LogCallAccept // counted against the quotas and served
	LogCall429    // rejected by a quota
	LogCallOutage // rejected: provider has no capacity
	LogCallAnswer // the provider answered
	LogCallFail   // the gateway gave up on the call
)

// Job phases.
const (
	jobWaiting uint8 = iota
	jobStarting
	jobLLM
	jobTool
)

type jobState struct {
	id       policies.JobID
	w        workloads.Job
	grading  bool
	project  int32
	tier     policies.Tier // effective tier, for the achieved tier shares
	agent    workloads.Agent
	phase    uint8
	pending  int32 // calls of the current turn not yet answered
	service  int32 // of which accepted by the provider
	arrival  Time
	admitted Time
	ready    Time
	mark     Time // last time the time split was brought up to date
	gateway  Time
	llm      Time
	tool     Time
}

// Call phases.
const (
	callQueued uint8 = iota
	callBackoff
	callProvider
)

type callState struct {
	job      int32 // job slot; -1-i for production stream i
	model    int32
	in, out  int32
	attempts int32
	phase    uint8
	u        float64 // latency variation draw
	queuedAt Time
	born     Time
	serial   int64
}

type modelState struct {
	cfg   *ModelConfig
	org   int // -1: no quotas
	queue ring.Ring[int32]

	gwInflight   int
	provInflight int // accepted, in service or waiting for a stream
	provBusy     int
	provQueue    ring.Ring[int32]
	streams      int // current, after capacity events
	latFactor    float64

	running int // jobs holding a container
	waiting int // jobs waiting for admission
	rej429  int // 429s since the last series sample

	depthHist []int32 // delayed readings, indexed like World.depthTimes

	depth, busy, runningLvl, gwOnly level
	raw                             results.LaneRaw
}

// level integrates a piecewise-constant quantity over the measurement window.
type level struct {
	v    int
	last Time
}

type orgState struct {
	windows []quotaWindow
}

// World is one run: the engine, the simulated system and the policy driving it.
type World struct {
	sc     *Scenario
	eng    *Engine
	pol    policies.Policy
	trig   policies.Trigger
	opts   Options
	source workloads.Source
	next   workloads.Job

	agentSrc  *rand.PCG  // reseeded per job turn (see workloads.Agent)
	gatewayRn *rand.Rand // backoff jitter

	models []modelState
	orgs   []orgState
	jobs   []jobState
	free   []int32
	byID   map[policies.JobID]int32
	calls  []callState
	freeC  []int32

	nextID         policies.JobID
	containersUsed int
	plan           policies.Plan
	limits         []int

	windowStart, end Time
	depthTimes       []Time // ring of delayed-depth sample times
	depthHead        int
	depthCount       int

	series   []results.SeriesRow
	log      []LogRecord
	serial   int64
	counts   Counts
	err      error
	capEvent []CapacityEvent
	fair     fairness
	prod     []productionStream
}

// Counts are whole-run totals, for conservation checks.
type Counts struct {
	JobsArrived, JobsStarted, JobsCompleted  int64
	CallsCreated, CallsAnswered, CallsFailed int64
	Tries, Rejected429, RejectedOutage       int64
}

// NewWorld builds a run of the scenario under the policy.
func NewWorld(sc *Scenario, opts Options) (*World, error) {
	if opts.Policy == nil {
		return nil, fmt.Errorf("no policy")
	}
	w := &World{
		sc: sc, eng: NewEngine(), pol: opts.Policy, trig: opts.Policy.Trigger(), opts: opts,
		agentSrc:    rand.NewPCG(0, 0),
		gatewayRn:   rand.New(rand.NewPCG(workloads.Stream(opts.Seed, "gateway"), 2)),
		byID:        make(map[policies.JobID]int32),
		windowStart: FromDuration(sc.Warmup),
		end:         FromDuration(sc.Duration),
	}
	w.source = opts.Source
	if w.source == nil {
		gen, err := workloads.NewGenerator(sc.Workload, sc.Catalogue(), sc.Duration, opts.Seed)
		if err != nil {
			return nil, fmt.Errorf("%s: workload: %w", sc.file, err)
		}
		w.source = gen
	}
	orgIndex := map[string]int{}
	for i, o := range sc.Organisations {
		orgIndex[o.Name] = i
		var ws []quotaWindow
		for _, q := range []struct {
			limit  float64
			span   Time
			tokens bool
		}{{o.RPM, Minute, false}, {o.TPM, Minute, true}, {o.RPD, 24 * Hour, false}, {o.TPD, 24 * Hour, true}} {
			if q.limit > 0 {
				ws = append(ws, quotaWindow{limit: q.limit, span: q.span, tokens: q.tokens})
			}
		}
		w.orgs = append(w.orgs, orgState{windows: ws})
	}
	cfgs := sc.ModelConfigs()
	w.models = make([]modelState, len(cfgs))
	w.limits = make([]int, len(cfgs))
	for i := range cfgs {
		m := &w.models[i]
		m.cfg = &cfgs[i]
		m.org = -1
		if o, ok := orgIndex[m.cfg.Org]; ok {
			m.org = o
		}
		m.streams = m.cfg.Streams
		m.latFactor = 1
		m.raw.Model = m.cfg.Name
		m.raw.Streams = m.cfg.Streams
		w.limits[i] = -1
	}
	w.capEvent = sc.Events
	w.fair = newFairness(len(cfgs))
	return w, nil
}

// Run simulates the scenario to its end. An error of the job source or of a
// production trace, even one found mid-run, is returned.
func (w *World) Run() error {
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
		w.eng.Schedule(0, evTick, 0, 0)
	}
	w.eng.Schedule(0, evSample, 0, 0)
	if w.sc.Gateway.DepthDelay > 0 {
		n := int(w.sc.Gateway.DepthDelay/w.sc.Gateway.DepthSample) + 2
		w.depthTimes = make([]Time, n)
		for i := range w.models {
			w.models[i].depthHist = make([]int32, n)
		}
		w.eng.Schedule(0, evDepthSample, 0, 0)
	}
	for i, e := range w.capEvent {
		w.eng.Schedule(FromDuration(e.At), evCapacity, int32(i), 0)
	}
	for w.err == nil {
		at, ok := w.eng.PeekTime()
		if !ok || at > w.end {
			break
		}
		w.eng.Step(w)
	}
	if w.err != nil {
		return w.err
	}
	if err := w.source.Err(); err != nil {
		return err
	}
	// Bring the integrals up to the end of the window.
	w.eng.RunUntil(w.end, w)
	for i := range w.models {
		m := &w.models[i]
		w.setLevel(&m.depth, m.depth.v, &m.raw.DepthArea)
		w.setLevel(&m.busy, m.busy.v, &m.raw.BusyArea)
		w.setLevel(&m.runningLvl, m.runningLvl.v, &m.raw.RunningArea)
		w.setLevel(&m.gwOnly, m.gwOnly.v, &m.raw.GatewayOnlyArea)
	}
	return nil
}

// pull fetches the next job from the source and schedules its arrival; at
// the end of the stream nothing is scheduled.
func (w *World) pull() {
	job, ok := w.source.Next()
	if !ok {
		return
	}
	at := FromDuration(job.Arrival)
	if at < w.eng.Now() {
		w.err = fmt.Errorf("job %d arrives at %v, before the previous one (%v): arrivals must be in order", job.ID, job.Arrival, w.eng.Now().Duration())
		return
	}
	w.next = job
	w.eng.Schedule(at, evArrival, 0, 0)
}

// Handle dispatches one event.
func (w *World) Handle(ev Event) {
	switch ev.Kind {
	case evArrival:
		job := w.next
		w.pull()
		w.arrive(job, false)
		if w.trig.OnEvent {
			w.decide()
		}
	case evTick:
		w.decide()
		w.eng.After(FromDuration(w.trig.Tick), evTick, 0, 0)
	case evSample:
		w.sample()
		w.eng.After(FromDuration(w.sc.SeriesInterval), evSample, 0, 0)
	case evDepthSample:
		w.sampleDepth()
		w.eng.After(FromDuration(w.sc.Gateway.DepthSample), evDepthSample, 0, 0)
	case evContainerReady:
		j := &w.jobs[ev.A]
		j.ready = w.eng.Now()
		j.mark = j.ready
		w.nextTurn(ev.A)
	case evCallDone:
		w.callDone(ev.A)
	case evRetry:
		if cs := &w.calls[ev.A]; cs.job < 0 {
			w.send(ev.A, &w.models[cs.model])
		} else {
			w.enqueueCall(ev.A)
			w.dispatch(cs.model)
		}
	case evProduction:
		w.productionArrival(ev.A)
	case evToolDone:
		w.nextTurn(ev.A)
	case evCapacity:
		w.capacityChange(int(ev.A))
	default:
		panic(fmt.Sprintf("sim: unknown event kind %d", ev.Kind))
	}
}

func (w *World) now() Time { return w.eng.Now() }

func (w *World) inWindow() bool { return w.now() >= w.windowStart }

// arrive registers a job and hands it to the policy.
func (w *World) arrive(job workloads.Job, grading bool) {
	slot := takeSlot(&w.jobs, &w.free)
	if job.Model < 0 || job.Model >= len(w.models) {
		w.err = fmt.Errorf("job %d: model index %d outside the catalogue", job.ID, job.Model)
		return
	}
	id := w.nextID
	w.nextID++
	w.jobs[slot] = jobState{id: id, w: job, arrival: w.now(), phase: jobWaiting, grading: grading}
	w.byID[id] = slot
	w.counts.JobsArrived++
	w.recordJob(&w.jobs[slot], LogJobArrive)
	w.fairArrive(&w.jobs[slot])
	m := &w.models[job.Model]
	m.waiting++
	if w.inWindow() {
		m.raw.Arrived++
	}
	pj := policies.Job{
		ID: id, Account: job.Account, Project: job.Project, Batch: job.Batch,
		AccountTier: policies.Tier(job.AccountTier), ProjectTier: policies.Tier(job.ProjectTier), BatchTier: policies.Tier(job.BatchTier),
		Model: policies.ModelID(job.Model), Arrival: Epoch.Add(w.now().Duration()),
	}
	w.jobs[slot].tier = pj.EffectiveTier()
	w.pol.Enqueue(pj.Arrival, pj)
}

// decide asks the policy which jobs to start and starts them.
func (w *World) decide() {
	w.plan.Reset()
	w.pol.Decide(Epoch.Add(w.now().Duration()), w, &w.plan)
	if w.plan.Limits != nil {
		copy(w.limits, w.plan.Limits)
	}
	for _, id := range w.plan.Start {
		w.start(id)
	}
}

// start gives a waiting job a container.
func (w *World) start(id policies.JobID) {
	slot, ok := w.byID[id]
	if !ok || w.jobs[slot].phase != jobWaiting {
		w.err = fmt.Errorf("policy %s started job %d, which is not waiting", w.pol.Name(), id)
		return
	}
	if w.containersUsed >= w.sc.Containers.Capacity {
		w.err = fmt.Errorf("policy %s started job %d with no free container (capacity %d)", w.pol.Name(), id, w.sc.Containers.Capacity)
		return
	}
	w.containersUsed++
	j := &w.jobs[slot]
	j.phase = jobStarting
	j.admitted = w.now()
	w.recordJob(j, LogJobStart)
	w.fairStart(j)
	m := &w.models[j.w.Model]
	m.waiting--
	m.running++
	w.setLevel(&m.runningLvl, m.running, &m.raw.RunningArea)
	w.counts.JobsStarted++
	if w.inWindow() {
		m.raw.Started++
	}
	w.eng.After(FromDuration(w.sc.Containers.Startup), evContainerReady, slot, 0)
}

// settle brings a job's time split up to now, before its state changes.
func (w *World) settle(j *jobState) {
	d := w.now() - j.mark
	j.mark = w.now()
	switch {
	case j.phase == jobTool:
		j.tool += d
	case j.phase == jobLLM && j.service > 0:
		j.llm += d
	case j.phase == jobLLM:
		j.gateway += d
	}
}

// gatewayOnly is whether the job holds its container only to wait on the gateway.
func gatewayOnly(j *jobState) bool { return j.phase == jobLLM && j.service == 0 }

// updateGatewayOnly keeps the per-model count of gateway-only jobs right
// after a change to a job's phase or service count; before is
// gatewayOnly(j) from before the change.
func (w *World) updateGatewayOnly(j *jobState, before bool) {
	if after := gatewayOnly(j); after != before {
		m := &w.models[j.w.Model]
		v := m.gwOnly.v + 1
		if !after {
			v = m.gwOnly.v - 1
		}
		w.setLevel(&m.gwOnly, v, &m.raw.GatewayOnlyArea)
	}
}

// nextTurn starts the job's next turn, or finishes it.
func (w *World) nextTurn(slot int32) {
	j := &w.jobs[slot]
	w.settle(j)
	before := gatewayOnly(j)
	if j.agent.Turn() == 0 && j.phase == jobStarting {
		j.agent.Start(j.w.Behaviour, j.w.Seed, w.agentSrc)
	}
	n, ok := j.agent.NextTurn(w.agentSrc)
	if !ok {
		w.finish(slot)
		return
	}
	j.phase = jobLLM
	j.pending = int32(n)
	j.service = 0
	model := int32(j.w.Model)
	for k := 0; k < n; k++ {
		in, out, u := j.agent.NextCall(w.agentSrc)
		w.enqueueCall(w.newCall(slot, model, in, out, u))
	}
	w.updateGatewayOnly(j, before)
	w.dispatch(model)
}

// newCall takes a call slot for a job's call (job >= 0) or a production
// request (job = -1 - stream).
func (w *World) newCall(job, model int32, in, out int, u float64) int32 {
	c := takeSlot(&w.calls, &w.freeC)
	w.calls[c] = callState{job: job, model: model, in: int32(in), out: int32(out), u: u, serial: w.serial, born: w.now()}
	w.serial++
	w.counts.CallsCreated++
	w.record(&w.calls[c], LogCallCreate)
	return c
}

// enqueueCall puts a call at the tail of its model's gateway queue.
func (w *World) enqueueCall(c int32) {
	cs := &w.calls[c]
	cs.phase = callQueued
	cs.queuedAt = w.now()
	m := &w.models[cs.model]
	m.queue.Push(c)
	w.setLevel(&m.depth, m.queue.Len(), &m.raw.DepthArea)
}

// dispatch sends queued calls while the gateway's in-flight limit allows.
func (w *World) dispatch(model int32) {
	m := &w.models[model]
	for m.gwInflight < m.cfg.InflightLimit && m.queue.Len() > 0 {
		c := m.queue.Pop()
		w.setLevel(&m.depth, m.queue.Len(), &m.raw.DepthArea)
		cs := &w.calls[c]
		if w.inWindow() {
			m.raw.QueueEntries++
			m.raw.QueueWaitSum += (w.now() - cs.queuedAt).Seconds()
		}
		w.send(c, m)
	}
}

// send offers one try of a call to the provider.
func (w *World) send(c int32, m *modelState) {
	cs := &w.calls[c]
	cs.attempts++
	w.counts.Tries++
	tokens := float64(cs.in) + float64(cs.out)
	if m.streams == 0 {
		w.record(cs, LogCallOutage)
		w.counts.RejectedOutage++
		if p := w.prodStream(cs); p != nil {
			p.stats.RejectedOutage++
		} else if w.inWindow() {
			m.raw.Errors++
		}
		w.backoff(c, 0)
		return
	}
	if m.org >= 0 {
		if retryAfter, ok := w.orgs[m.org].admit(w.now(), tokens); !ok {
			w.record(cs, LogCall429)
			w.counts.Rejected429++
			m.rej429++
			if p := w.prodStream(cs); p != nil {
				p.stats.Rejected429++
			} else if w.inWindow() {
				m.raw.Rejected429++
			}
			if retryAfter < 0 { // larger than the quota itself: can never succeed
				w.failCall(c)
				return
			}
			w.backoff(c, retryAfter)
			return
		}
	}
	w.record(cs, LogCallAccept)
	m.provInflight++
	cs.phase = callProvider
	if cs.job >= 0 {
		m.gwInflight++
		j := &w.jobs[cs.job]
		w.settle(j)
		before := gatewayOnly(j)
		j.service++
		w.updateGatewayOnly(j, before)
	}
	if m.provBusy < m.streams {
		w.serve(c, m)
	} else {
		m.provQueue.Push(c)
	}
}

func (w *World) record(cs *callState, ev LogEvent) {
	if w.opts.Log {
		job := policies.JobID(-1)
		if cs.job >= 0 {
			job = w.jobs[cs.job].id
		}
		w.log = append(w.log, LogRecord{T: w.now(), Event: ev, Job: job, Call: cs.serial,
			Model: cs.model, Org: int32(w.models[cs.model].org), Tokens: cs.in + cs.out, Try: cs.attempts})
	}
}

func (w *World) recordJob(j *jobState, ev LogEvent) {
	if w.opts.Log {
		w.log = append(w.log, LogRecord{T: w.now(), Event: ev, Job: j.id, Call: -1, Model: int32(j.w.Model), Org: -1, Grading: j.grading})
	}
}

// serve starts a call on a provider stream.
func (w *World) serve(c int32, m *modelState) {
	cs := &w.calls[c]
	m.provBusy++
	w.setLevel(&m.busy, m.provBusy, &m.raw.BusyArea)
	base := m.cfg.TTFT.Seconds() + float64(cs.out)/m.cfg.DecodeRate
	lat := base * m.latFactor * slowdown(m.cfg.Slowdown, float64(m.provBusy)/float64(m.cfg.Streams)) * jitter(m.cfg.Jitter, cs.u)
	w.eng.After(FromSeconds(lat), evCallDone, c, 0)
}

func slowdown(s SlowdownConfig, util float64) float64 {
	if s.Max <= 1 || util <= s.Knee {
		return 1
	}
	x := math.Min(1, (util-s.Knee)/(1-s.Knee))
	return 1 + (s.Max-1)*x
}

// jitter turns a uniform draw into a latency factor of mean 1.
func jitter(j JitterConfig, u float64) float64 {
	u = math.Min(math.Max(u, 1e-12), 1-1e-12)
	switch j.Dist {
	case "exponential":
		return -math.Log1p(-u)
	case "lognormal":
		sigma := math.Sqrt(math.Log1p(j.CV * j.CV))
		return math.Exp(-sigma*sigma/2 + sigma*distuv.UnitNormal.Quantile(u))
	}
	return 1
}

// callDone: the provider answered a call.
func (w *World) callDone(c int32) {
	cs := &w.calls[c]
	m := &w.models[cs.model]
	m.provBusy--
	m.provInflight--
	w.setLevel(&m.busy, m.provBusy, &m.raw.BusyArea)
	w.counts.CallsAnswered++
	w.record(cs, LogCallAnswer)
	for m.provQueue.Len() > 0 && m.provBusy < m.streams {
		w.serve(m.provQueue.Pop(), m)
	}
	if p := w.prodStream(cs); p != nil {
		p.stats.Answered++
		p.stats.LatencySum += (w.now() - cs.born).Seconds()
		w.freeC = append(w.freeC, c)
		return
	}
	m.gwInflight--
	if w.inWindow() {
		m.raw.Calls++
	}
	j := &w.jobs[cs.job]
	w.settle(j)
	before := gatewayOnly(j)
	j.service--
	w.callFinished(c, j, before)
	w.dispatch(cs.model)
}

// failCall gives up on a call; the job's turn goes on without it.
func (w *World) failCall(c int32) {
	cs := &w.calls[c]
	w.counts.CallsFailed++
	w.record(cs, LogCallFail)
	if p := w.prodStream(cs); p != nil {
		p.stats.Failed++
		if minute := int64(w.now() / Minute); minute != p.lastFailMinute {
			p.lastFailMinute = minute
			p.stats.FailedMinutes++
		}
		w.freeC = append(w.freeC, c)
		return
	}
	if w.inWindow() {
		w.models[cs.model].raw.Failed++
	}
	j := &w.jobs[cs.job]
	w.settle(j)
	w.callFinished(c, j, gatewayOnly(j))
}

// callFinished retires a call of a job's turn; the last one ends the turn.
func (w *World) callFinished(c int32, j *jobState, before bool) {
	slot := w.calls[c].job
	w.freeC = append(w.freeC, c)
	j.pending--
	if j.pending > 0 {
		w.updateGatewayOnly(j, before)
		return
	}
	tool := j.agent.EndTurn(w.agentSrc)
	j.phase = jobTool
	w.updateGatewayOnly(j, before)
	w.eng.After(FromDuration(tool), evToolDone, slot, 0)
}

// backoff schedules the retry of a rejected call.
func (w *World) backoff(c int32, retryAfter Time) {
	cs := &w.calls[c]
	r := &w.sc.Gateway.Retry
	maxAttempts := r.MaxAttempts
	if p := w.prodStream(cs); p != nil {
		maxAttempts = p.cfg.MaxAttempts
	}
	if maxAttempts > 0 && int(cs.attempts) >= maxAttempts {
		w.failCall(c)
		return
	}
	cs.phase = callBackoff
	d := float64(r.Base) * math.Pow(r.Multiplier, float64(cs.attempts-1))
	d = math.Min(d, float64(r.Max))
	d *= 1 - r.Jitter*w.gatewayRn.Float64()
	delay := FromDuration(time.Duration(d))
	if *r.HonourRetryAfter && retryAfter > delay {
		delay = retryAfter
	}
	w.eng.After(delay, evRetry, c, 0)
}

// finish ends a job: it releases its container and may chain a grading job.
func (w *World) finish(slot int32) {
	j := &w.jobs[slot]
	m := &w.models[j.w.Model]
	w.containersUsed--
	m.running--
	w.setLevel(&m.runningLvl, m.running, &m.raw.RunningArea)
	w.counts.JobsCompleted++
	w.recordJob(j, LogJobFinish)
	w.fairFinish(j)
	if w.inWindow() {
		m.raw.Completed++
		m.raw.Times = append(m.raw.Times, results.JobTimes{
			Queued:  float32((j.admitted - j.arrival).Seconds()),
			Start:   float32((j.ready - j.admitted).Seconds()),
			Gateway: float32(j.gateway.Seconds()),
			LLM:     float32(j.llm.Seconds()),
			Tool:    float32(j.tool.Seconds()),
		})
	}
	id, model := j.id, j.w.Model
	grade := j.w
	delete(w.byID, id)
	*j = jobState{}
	w.free = append(w.free, slot)
	w.pol.Finished(Epoch.Add(w.now().Duration()), id, policies.ModelID(model))
	if grade.Judge >= 0 {
		grade.Model, grade.Behaviour = grade.Judge, grade.JudgeBehaviour
		grade.Judge, grade.JudgeBehaviour = -1, nil
		grade.Seed = grade.Seed*0x9e3779b97f4a7c15 + 1
		grade.Arrival = w.now().Duration()
		w.arrive(grade, true)
	}
	if w.trig.OnEvent {
		w.decide()
	}
}

// capacityChange applies a scenario event to a provider.
func (w *World) capacityChange(i int) {
	e := w.capEvent[i]
	for k := range w.models {
		m := &w.models[k]
		if m.cfg.Name != e.Model {
			continue
		}
		if e.Capacity != nil {
			m.streams = int(math.Floor(float64(m.cfg.Streams) * *e.Capacity))
		}
		if e.Latency != nil {
			m.latFactor = *e.Latency
		}
		for m.provQueue.Len() > 0 && m.provBusy < m.streams {
			w.serve(m.provQueue.Pop(), m)
		}
		w.dispatch(int32(k))
	}
}

// setLevel changes a level's value, adding the time it held the old value
// within the window to area.
func (w *World) setLevel(l *level, v int, area *float64) {
	now := w.now()
	if l.v != 0 {
		from := max(l.last, w.windowStart)
		to := min(now, w.end)
		if to > from {
			*area += float64(l.v) * (to - from).Seconds()
		}
	}
	l.v, l.last = v, now
}

// sample appends one time-series row per model with anything going on.
func (w *World) sample() {
	t := w.now().Seconds()
	for i := range w.models {
		m := &w.models[i]
		if m.running == 0 && m.queue.Len() == 0 && m.provInflight == 0 && m.waiting == 0 && m.rej429 == 0 {
			continue
		}
		var use float64
		if m.org >= 0 {
			use = w.orgs[m.org].use(w.now())
		}
		w.series = append(w.series, results.SeriesRow{
			T: t, Model: int32(i), Running: int32(m.running), Limit: int32(w.limits[i]),
			Depth: int32(m.queue.Len()), Inflight: int32(m.provInflight), Waiting: int32(m.waiting),
			Rejected429: int32(m.rej429), QuotaUse: float32(use),
		})
		m.rej429 = 0
	}
	w.fairSample()
	if w.opts.Progress != nil {
		w.opts.Progress(w.now(), w.end)
	}
}

// sampleDepth records the depth readings a delayed metrics pipeline serves.
func (w *World) sampleDepth() {
	n := len(w.depthTimes)
	w.depthHead = (w.depthHead + 1) % n
	w.depthTimes[w.depthHead] = w.now()
	for i := range w.models {
		w.models[i].depthHist[w.depthHead] = int32(w.models[i].queue.Len())
	}
	w.depthCount = min(w.depthCount+1, n)
}

// Running implements policies.State.
func (w *World) Running(m policies.ModelID) int { return w.models[m].running }

// FreeContainers implements policies.State.
func (w *World) FreeContainers() int { return w.sc.Containers.Capacity - w.containersUsed }

// GatewayDepth implements policies.State: the newest reading at least
// depth_delay old, as a lagging metrics pipeline would serve it.
func (w *World) GatewayDepth(model policies.ModelID) (int, time.Time) {
	m := &w.models[model]
	if w.sc.Gateway.DepthDelay == 0 {
		return m.queue.Len(), Epoch.Add(w.now().Duration())
	}
	cutoff := w.now() - FromDuration(w.sc.Gateway.DepthDelay)
	n := len(w.depthTimes)
	for k := 0; k < w.depthCount; k++ {
		i := (w.depthHead - k + n) % n
		if w.depthTimes[i] <= cutoff {
			return int(m.depthHist[i]), Epoch.Add(w.depthTimes[i].Duration())
		}
	}
	return 0, time.Time{} // no reading yet: a policy must treat it as stale
}

// Lanes is what was measured on each model, in catalogue order.
func (w *World) Lanes() []results.LaneRaw {
	out := make([]results.LaneRaw, len(w.models))
	for i := range w.models {
		out[i] = w.models[i].raw
	}
	return out
}

// Series is the time series sampled every series_interval.
func (w *World) Series() []results.SeriesRow { return w.series }

// Log is the event log (Options.Log).
func (w *World) Log() []LogRecord { return w.log }

// Counts are the whole-run totals.
func (w *World) Counts() Counts { return w.counts }

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
	for id, slot := range w.byID {
		switch w.jobs[slot].phase {
		case jobWaiting:
			c.JobsWaiting = append(c.JobsWaiting, id)
		case jobStarting:
			c.JobsStarting = append(c.JobsStarting, id)
		default:
			c.JobsRunning = append(c.JobsRunning, id)
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
