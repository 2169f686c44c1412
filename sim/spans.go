package sim

import (
	"github.com/evalsched/lab/results"
)

// tracer builds each running job's spans (Options.Spans) from the world's
// observations and hands the job to the sink when it ends: what is kept is
// the running jobs' calls, never the run's. It observes only when it is
// set, so a run without it pays a nil check per observation.
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

// observe adds an observation of an evaluation job or call to its spans.
func (t *tracer) observe(w *World, o *obs) {
	switch o.kind {
	case obsJobStarted:
		t.begin(w, o.id)
	case obsJobEnded:
		t.finish(w, o.id)
	case obsToolStep:
		t.tool(o.id, w.running.at(o.id).agent.Turn(), w.now(), o.d)
	case obsCallMade, obsTry, obsCallAnswered, obsCallFailed:
		cs := &w.calls[o.id]
		if cs.kind != jobCall {
			return
		}
		now := w.now()
		switch o.kind {
		case obsCallMade:
			t.made(cs.owner, o.id, w.running.at(cs.owner).agent.Turn(), now, cs)
		case obsTry:
			t.try(o.id, cs, now, o.verdict)
		case obsCallAnswered:
			t.ended(o.id, cs, now, false)
		case obsCallFailed:
			t.event(o.id, cs, now, results.EventGaveUp, 0)
			t.ended(o.id, cs, now, true)
		}
	}
}

// begin: the job took running slot slot. Its names are read now, while
// its batch is open for certain (the world prunes a batch when its last
// job ends).
func (t *tracer) begin(w *World, slot int32) {
	j := w.running.at(slot)
	sj := t.job(slot)
	*sj = results.SpanJob{Calls: sj.Calls[:0], Tools: sj.Tools[:0],
		ID: int64(j.id), Account: w.ids.accounts[j.account], Project: w.ids.projectName(j.project),
		Batch: w.ids.batchName(j.batch), Model: w.rec.names[j.model], Grading: j.grading,
		Arrival: int64(j.arrival), Admitted: int64(j.admitted)}
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
	sj.Failed = j.failed
	sj.Ready, sj.End = int64(j.ready), int64(w.now())
	t.sink.Job(sj)
}

// try records a job call's try: its wait in the gateway queue, then the
// provider's verdict.
func (t *tracer) try(c int32, cs *callState, now Time, v verdict) {
	t.event(c, cs, now, results.EventDequeued, int64(now-cs.queuedAt))
	kind := results.EventAccepted
	switch v {
	case rejectedKey:
		kind = results.EventKeyRejected
	case rejectedOutage:
		kind = results.EventOutage
	case rejected429:
		kind = results.EventRateLimited
	}
	t.event(c, cs, now, kind, 0)
}
