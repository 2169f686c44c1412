package sim

import (
	"github.com/evalsched/lab/results"
)

// tracer builds each running job's spans (Options.Spans) and hands the
// job to the sink when it ends: what is kept is the running jobs' calls,
// never the run's. The world calls it only when it is set, so a run
// without it pays a nil check at the few places below and nothing else.
type tracer struct {
	sink results.SpanSink
	jobs []results.SpanJob // by running slot, reused from job to job
	call []int32           // by call slot: the call's index in its job's Calls
}

func (t *tracer) job(slot int32) *results.SpanJob {
	for int(slot) >= len(t.jobs) {
		t.jobs = append(t.jobs, results.SpanJob{})
	}
	return &t.jobs[slot]
}

// begin: the job took running slot slot.
func (t *tracer) begin(slot int32) {
	j := t.job(slot)
	*j = results.SpanJob{Calls: j.Calls[:0], Tools: j.Tools[:0]}
}

// made: call c of the job's turn was made now.
func (t *tracer) made(slot, c int32, turn int, now Time, cs *callState) {
	j := t.job(slot)
	k := len(j.Calls)
	if k < cap(j.Calls) {
		j.Calls = j.Calls[:k+1]
	} else {
		j.Calls = append(j.Calls, results.SpanCall{})
	}
	sc := &j.Calls[k]
	*sc = results.SpanCall{Turn: turn, Start: int64(now), In: int(cs.in), Out: int(cs.out), MaxTokens: int(cs.maxOut), Events: sc.Events[:0]}
	for int(c) >= len(t.call) {
		t.call = append(t.call, 0)
	}
	t.call[c] = int32(k)
}

func (t *tracer) callOf(c int32, cs *callState) *results.SpanCall {
	return &t.job(cs.owner).Calls[t.call[c]]
}

// event records what happened to a job call's try now.
func (t *tracer) event(c int32, cs *callState, now Time, kind results.SpanEventKind, value int64) {
	sc := t.callOf(c, cs)
	sc.Events = append(sc.Events, results.SpanEvent{T: int64(now), Kind: kind, Attempt: int(cs.attempts), Value: value})
}

// ended: the call was answered (or given up) now.
func (t *tracer) ended(c int32, cs *callState, now Time, failed bool) {
	sc := t.callOf(c, cs)
	sc.End, sc.Failed = int64(now), failed
	sc.CacheRead, sc.CacheWrite = int(cs.cacheRead), int(cs.cacheWrite)
}

// tool: the turn's tool step runs from now for d.
func (t *tracer) tool(slot int32, turn int, now, d Time) {
	j := t.job(slot)
	j.Tools = append(j.Tools, results.SpanTool{Turn: turn, Start: int64(now), End: int64(now + d)})
}

// finish hands the ended job to the sink.
func (t *tracer) finish(w *World, slot int32) {
	j := w.running.at(slot)
	sj := t.job(slot)
	sj.ID = int64(j.id)
	sj.Account = w.ids.accounts[j.account]
	sj.Project = w.ids.projectName(j.project)
	sj.Batch = w.ids.batchName(j.batch)
	sj.Model = w.rec.names[j.model]
	sj.Grading, sj.Failed = j.grading, j.failed
	sj.Arrival, sj.Admitted, sj.Ready, sj.End = int64(j.arrival), int64(j.admitted), int64(j.ready), int64(w.now())
	t.sink.Job(sj)
}

// traceTry records a job call's try: its wait in the gateway queue, then
// the provider's verdict.
func (w *World) traceTry(c int32, cs *callState, v verdict) {
	now := w.now()
	w.tr.event(c, cs, now, results.EventDequeued, int64(now-cs.queuedAt))
	kind := results.EventAccepted
	switch v {
	case rejectedKey:
		kind = results.EventKeyRejected
	case rejectedOutage:
		kind = results.EventOutage
	case rejected429:
		kind = results.EventRateLimited
	}
	w.tr.event(c, cs, now, kind, 0)
}
