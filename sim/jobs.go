package sim

import (
	"fmt"

	"github.com/evalsched/lab/policies"
	"github.com/evalsched/lab/workloads"
)

// The job lifecycle: arrival (handed to the policy) → start (a container is
// taken) → container ready → turns of parallel calls and tool steps → finish
// (container released; a grading job may follow).

// Job phases.
const (
	jobWaiting uint8 = iota
	jobStarting
	jobLLM
	jobTool
)

type jobState struct {
	// What every call of a running job touches comes first, in the
	// record's first cache line with waitingJob's first fields (its model
	// and lane): the table is large and touched at random. The agent loop
	// follows, touched once a turn.
	phase   uint8
	failed  bool  // a call could never succeed: the job ends failed after its turn
	pending int32 // calls of the current turn not yet answered
	service int32 // of which accepted by the provider
	mark    Time  // last time the time split was brought up to date
	gateway Time
	llm     Time
	tool    Time

	waitingJob // what it was while it waited (model and lane first)
	agent      workloads.Agent
	admitted   Time
	ready      Time
	// The job's prompt-cache entries on its model (cache.go).
	cache jobCache
	_     [16]byte // to 256 bytes: every record starts a cache line
}

// waitingJob is a job waiting for a container: what starting it, and later
// chaining its grading job, needs. Its names are interned (in World.ids), so
// a backlogged baseline holding millions of jobs for days keeps 72 bytes a
// job instead of a whole jobState with its workloads.Job.
type waitingJob struct {
	model          int32
	lane           int32 // the recorder's own key for the project on the job's model; the world never reads it
	judge          int32 // model of the chained grading job, -1 for none
	account        int32 // the job's account key in World.ids
	project        int32 // the job's project key in World.ids
	batch          int32 // the job's batch key (slot) in World.ids
	id             policies.JobID
	arrival        Time
	seed           uint64 // seeds the job's agent loop
	behaviour      *workloads.Behaviour
	judgeBehaviour *workloads.Behaviour
	tiers          [3]int8       // account, project and batch tiers as set (0 = inherit)
	tier           policies.Tier // effective tier, for the achieved tier shares
	grading        bool
}

// modelJobs counts one model's jobs by where they are.
type modelJobs struct {
	running int // holding a container
	waiting int // waiting for admission
}

// pull fetches the next job from the source and schedules its arrival; at
// the end of the stream nothing is scheduled.
func (w *World) pull() {
	job := w.pf.NextPtr()
	if w.next = job; job == nil {
		w.err = w.source.Err() // a stream that failed stops the run now, not at its end
		return
	}
	at := FromDuration(job.Arrival)
	if at < w.eng.Now() {
		w.err = fmt.Errorf("job %d arrives at %v, before the previous one (%v): arrivals must be in order", job.ID, job.Arrival, w.eng.Now().Duration())
		return
	}
	w.eng.post(at, evArrival, 0)
}

// arrive registers a job and hands it to the policy.
func (w *World) arrive(job *workloads.Job, grading bool) {
	if job.Model < 0 || job.Model >= len(w.load) {
		w.err = fmt.Errorf("job %d: model index %d outside the catalogue", job.ID, job.Model)
		return
	}
	if b := job.Behaviour; b != nil && b.Batch {
		w.batchArrive(job)
		return
	}
	slot := w.jobs.take()
	id := w.nextID
	w.nextID++
	// Written in place field by field (the slot is zeroed): a literal is
	// built on the stack and copied.
	wj := w.jobs.at(slot)
	wj.model, wj.judge = int32(job.Model), int32(job.Judge)
	wj.account, wj.project = w.ids.account(job.Account), w.ids.project(job.Project)
	wj.id, wj.arrival, wj.seed = id, w.now(), job.Seed
	wj.behaviour, wj.judgeBehaviour = job.Behaviour, job.JudgeBehaviour
	wj.tiers = [3]int8{job.AccountTier, job.ProjectTier, job.BatchTier}
	wj.tier = effectiveTier(job.AccountTier, job.ProjectTier, job.BatchTier)
	wj.grading = grading
	var fresh bool
	wj.batch, fresh = w.ids.arrive(job.Batch, grading)
	w.byID.set(id, slot)
	w.emitJobArrived(slot, fresh)
	w.load[job.Model].waiting++
	now := w.wallNow()
	w.pol.Enqueue(now, policies.Job{
		ID: id, Account: job.Account, Project: job.Project, Batch: job.Batch,
		AccountTier: policies.Tier(job.AccountTier), ProjectTier: policies.Tier(job.ProjectTier), BatchTier: policies.Tier(job.BatchTier),
		Model: policies.ModelID(job.Model), Arrival: now,
	})
}

// effectiveTier is policies.Job.EffectiveTier of a job with these account,
// project and batch tiers (the highest priority, smallest tier, any level
// sets; policies.DefaultTier if none does), without building the Job.
func effectiveTier(account, project, batch int8) policies.Tier {
	// A level that sets no tier (0, or an out-of-range negative one) is
	// read as 255, above any tier set: the smallest then wins.
	best := min(tierSet(account), tierSet(project), tierSet(batch))
	if best == 255 {
		return policies.DefaultTier
	}
	return policies.Tier(best)
}

// tierSet is a level's tier for effectiveTier's minimum: 255 if unset.
func tierSet(x int8) uint8 {
	if x > 0 {
		return uint8(x)
	}
	return 255
}

// gradingJob is the grading job a finished job chains onto its judge, in
// its account, project and batch (the batch stays live until it is graded).
func (w *World) gradingJob(j *waitingJob) workloads.Job {
	return workloads.Job{
		Account: w.ids.accounts[j.account], Project: w.ids.projectName(j.project), Batch: w.ids.batchName(j.batch),
		AccountTier: j.tiers[0], ProjectTier: j.tiers[1], BatchTier: j.tiers[2],
		Model: int(j.judge), Behaviour: j.judgeBehaviour, Judge: -1,
		Seed: j.seed*0x9e3779b97f4a7c15 + 1, Arrival: w.now().Duration(),
	}
}

// decide asks the policy which jobs to start and starts them.
func (w *World) decide() {
	w.plan.Reset()
	w.gw.closeSignals()
	w.pol.Decide(w.wallNow(), w, &w.plan)
	if w.fallible != nil {
		if err := w.fallible.Err(); err != nil {
			w.err = err
			return
		}
	}
	if l := w.plan.Limits; l != nil {
		if len(l) != len(w.limits) {
			w.err = fmt.Errorf("policy %s: the plan's limits have %d entries for %d models", w.pol.Name(), len(l), len(w.limits))
			return
		}
		// The policy's own slice, not a copy: Plan's contract has a policy
		// change it only inside Decide, so it holds this decision's limits
		// until the next.
		w.limits = l
	}
	for _, id := range w.plan.Start {
		w.start(id)
	}
}

// start gives a waiting job a container, moving it to the running table.
func (w *World) start(id policies.JobID) {
	wslot, ok := w.byID.get(id)
	var wj *waitingJob
	if ok {
		wj = w.jobs.at(wslot)
	}
	if !ok || wj.id != id {
		w.err = fmt.Errorf("policy %s started job %d, which is not waiting", w.pol.Name(), id)
		return
	}
	if w.containersUsed >= w.sc.Containers.Capacity {
		w.err = fmt.Errorf("policy %s started job %d with no free container (capacity %d)", w.pol.Name(), id, w.sc.Containers.Capacity)
		return
	}
	w.containersUsed++
	slot := w.running.take()
	j := w.running.at(slot) // zeroed by take: only what is not zero is set
	j.phase = jobStarting
	j.waitingJob = *wj // one statement each: a tuple's copy goes through the stack
	j.admitted = w.now()
	w.jobs.releaseAt(wslot, wj) // zeroes it
	w.byID.remove(id, w.nextID)
	n := &w.load[j.model]
	n.waiting--
	n.running++
	w.emitJobStarted(slot, n.running)
	startup := FromDuration(w.sc.Containers.Startup)
	if p := j.behaviour.Plan; p != nil {
		startup += FromDuration(p.Setup) // the job's own setup before its first call
	}
	w.eng.postAfter(startup, evContainerReady, slot)
}

// containerReady: the job's container has started; its first turn begins.
// From here on a job is addressed by its slot in the running table.
func (w *World) containerReady(slot int32) {
	j := w.running.at(slot)
	j.ready = w.now()
	j.mark = j.ready
	w.nextTurn(slot)
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
	if gatewayOnly(j) != before { // it is now !before: no variable, so that this inlines
		w.emitGatewayOnly(j.model, !before)
	}
}

// nextTurn starts the job's next turn, or finishes it.
func (w *World) nextTurn(slot int32) {
	j := w.running.at(slot)
	w.settle(j)
	before := gatewayOnly(j)
	if j.agent.Turn() == 0 && j.phase == jobStarting {
		j.agent.Start(j.behaviour, j.seed, w.agentSrc)
	}
	n, ok := j.agent.NextTurn(w.agentSrc)
	if !ok {
		w.finish(slot)
		return
	}
	j.phase = jobLLM
	j.pending = int32(n)
	j.service = 0
	model := j.model
	if !j.agent.Planned() {
		// A drawn behaviour's calls are on the job's model, with no base
		// latency or record of their own: the plan's per-call questions
		// below have one answer a job.
		maxOut := j.agent.MaxTokens()
		for range n {
			in, out, u := j.agent.NextCall(w.agentSrc)
			c := w.newCall(jobCall, slot, model, in, out, maxOut, workloads.CallRecord{}, u)
			w.emitCallMade(c, model, w.enqueueCall(c))
		}
		w.updateGatewayOnly(j, before)
		w.dispatch(model)
		return
	}
	other := int32(-1) // a model of this turn's calls other than the job's (a replay's plan)
	for k := 0; k < n; k++ {
		in, out, u := j.agent.NextCall(w.agentSrc)
		m := model
		if cm := j.agent.CallModel(); cm >= 0 && int32(cm) != model {
			m = int32(cm)
		}
		c := w.newCall(jobCall, slot, m, in, out, j.agent.MaxTokens(), j.agent.Recorded(), u)
		if b := j.agent.Base(); b > 0 {
			w.calls[c].base = b
		}
		if m != model {
			if other >= 0 && other != m {
				w.dispatch(other)
			}
			other = m
		}
		w.emitCallMade(c, m, w.enqueueCall(c))
	}
	w.updateGatewayOnly(j, before)
	if other >= 0 {
		w.dispatch(other)
	}
	w.dispatch(model)
}

// callAccepted: the provider accepted a try of one of the job's calls.
func (w *World) callAccepted(slot int32) {
	j := w.running.at(slot)
	w.settle(j)
	before := gatewayOnly(j)
	j.service++
	w.updateGatewayOnly(j, before)
}

// callEnded retires call c of the job in running slot slot (its owner),
// answered by the provider or given up; the turn's last call ends it with
// a tool step.
func (w *World) callEnded(c, slot int32, answered bool) {
	j := w.running.at(slot)
	w.settle(j)
	before := gatewayOnly(j)
	if answered {
		j.service--
	}
	w.freeC = append(w.freeC, c)
	j.pending--
	if j.pending > 0 {
		w.updateGatewayOnly(j, before)
		return
	}
	if j.failed {
		w.finish(slot)
		return
	}
	tool := FromDuration(j.agent.EndTurn())
	j.phase = jobTool
	w.emitToolStep(slot, tool)
	w.updateGatewayOnly(j, before)
	w.eng.postAfter(tool, evToolDone, slot)
}

// finish ends a job: it releases its container and may chain a grading job.
func (w *World) finish(slot int32) {
	j := w.running.at(slot)
	w.containersUsed--
	n := &w.load[j.model]
	n.running--
	// A job with a judge keeps its batch open for the grading job, even
	// when it failed and none follows.
	ended := w.ids.finish(j.batch, j.judge >= 0)
	w.emitJobEnded(slot, n.running, ended)
	id, model := j.id, j.model
	graded := j.judge >= 0 && !j.failed
	if graded {
		w.grade = w.gradingJob(&j.waitingJob)
	}
	w.running.releaseAt(slot, j)
	w.pol.Finished(w.wallNow(), id, policies.ModelID(model))
	if graded {
		w.arrive(&w.grade, true)
	}
	if w.trig.OnEvent {
		w.decide()
	}
}

// Running implements policies.State.
func (w *World) Running(m policies.ModelID) int { return w.load[m].running }

// FreeContainers implements policies.State.
func (w *World) FreeContainers() int { return w.sc.Containers.Capacity - w.containersUsed }
