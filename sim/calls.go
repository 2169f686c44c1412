package sim

import "github.com/evalsched/lab/policies"

// A call's path: created by its owner → (evaluation calls) queued at the
// gateway and sent while the lane's in-flight limit allows → a try offered
// to the provider: accepted (served on a stream, or waiting for one) or
// rejected (outage or 429 → backoff → retry, or given up) → answered. Its
// owner hears of acceptance and of the end.

// callKind says who made a call and so who hears of its outcome.
type callKind uint8

const (
	jobCall        callKind = iota // a turn of an evaluation job; owner is the job slot
	productionCall                 // a production request; owner is the stream index
)

// Call phases.
const (
	callQueued uint8 = iota
	callBackoff
	callProvider
)

type callState struct {
	owner    int32 // job slot or production stream, by kind
	kind     callKind
	phase    uint8
	model    int32
	in, out  int32
	attempts int32
	u        float64 // latency variation draw
	queuedAt Time
	born     Time
	serial   int64
}

// newCall takes a call slot.
func (w *World) newCall(kind callKind, owner, model int32, in, out int, u float64) int32 {
	c := takeSlot(&w.calls, &w.freeC)
	w.calls[c] = callState{kind: kind, owner: owner, model: model, in: int32(in), out: int32(out), u: u, serial: w.serial, born: w.now()}
	w.serial++
	w.rec.counts.CallsCreated++
	w.logCall(&w.calls[c], LogCallCreate)
	return c
}

// logCall records a call event in the log, if kept.
func (w *World) logCall(cs *callState, ev LogEvent) {
	if !w.rec.logOn {
		return
	}
	job := policies.JobID(-1)
	if cs.kind == jobCall {
		job = w.jobs.at(cs.owner).id
	}
	w.rec.logCall(cs, ev, job, w.prov.models[cs.model].org)
}

// enqueueCall puts an evaluation call at the tail of its model's gateway queue.
func (w *World) enqueueCall(c int32) {
	cs := &w.calls[c]
	cs.phase = callQueued
	cs.queuedAt = w.now()
	w.rec.depth(cs.model, w.gw.push(cs.model, c))
}

// dispatch sends queued calls while the gateway's in-flight limit allows.
func (w *World) dispatch(model int32) {
	for {
		c, ok := w.gw.pop(model)
		if !ok {
			return
		}
		w.rec.dequeued(model, w.gw.Depth(model), w.now()-w.calls[c].queuedAt)
		w.send(c)
	}
}

// send offers one try of a call to the provider.
func (w *World) send(c int32) {
	cs := &w.calls[c]
	cs.attempts++
	w.rec.counts.Tries++
	v, retryAfter := w.prov.offer(cs.model, w.now(), float64(cs.in)+float64(cs.out))
	switch v {
	case rejectedOutage:
		w.logCall(cs, LogCallOutage)
		w.rec.outage(cs)
		w.backoff(c, 0)
		return
	case rejected429:
		w.logCall(cs, LogCall429)
		w.rec.rejected(cs)
		if cs.kind == jobCall {
			w.gw.lanes[cs.model].throttled++
			w.gw.congested(cs.model, w.now())
		}
		if retryAfter < 0 { // larger than the quota itself: can never succeed
			if cs.kind == jobCall {
				w.jobs.at(cs.owner).failed = true
			}
			w.failCall(c)
			return
		}
		w.backoff(c, retryAfter)
		return
	}
	w.logCall(cs, LogCallAccept)
	cs.phase = callProvider
	free := w.prov.accept(cs.model, c)
	if cs.kind == jobCall {
		w.gw.sent(cs.model)
		w.callAccepted(cs.owner)
		if free {
			w.gw.clean(cs.model)
		} else {
			w.gw.congested(cs.model, w.now())
		}
	}
	if free {
		w.serve(c)
	}
}

// serve starts a call on a provider stream.
func (w *World) serve(c int32) {
	cs := &w.calls[c]
	lat := w.prov.start(cs.model, cs.out, cs.u)
	w.rec.busy(cs.model, w.prov.models[cs.model].busy)
	w.eng.After(lat, evCallDone, c, 0)
}

// serveWaiting starts accepted calls waiting for a stream while streams are free.
func (w *World) serveWaiting(model int32) {
	for {
		c, ok := w.prov.next(model)
		if !ok {
			return
		}
		w.serve(c)
	}
}

// callDone: the provider answered a call.
func (w *World) callDone(c int32) {
	cs := &w.calls[c]
	model := cs.model
	w.prov.done(model)
	w.rec.busy(model, w.prov.models[model].busy)
	w.rec.counts.CallsAnswered++
	w.logCall(cs, LogCallAnswer)
	w.serveWaiting(model)
	w.rec.answered(cs)
	if cs.kind == productionCall {
		w.freeC = append(w.freeC, c)
		return
	}
	w.gw.answered(model)
	w.gw.answeredCall(model, w.now()-cs.born)
	w.callEnded(c, true)
	w.dispatch(model)
}

// failCall gives up on a call; a job's turn goes on without it.
func (w *World) failCall(c int32) {
	cs := &w.calls[c]
	w.rec.failed(cs)
	w.logCall(cs, LogCallFail)
	if cs.kind == productionCall {
		w.freeC = append(w.freeC, c)
		return
	}
	w.callEnded(c, false)
}

// backoff schedules the retry of a rejected call, or gives up on it after
// its owner's max attempts.
func (w *World) backoff(c int32, retryAfter Time) {
	cs := &w.calls[c]
	maxAttempts := w.sc.Gateway.Retry.MaxAttempts
	if cs.kind == productionCall {
		maxAttempts = w.prod[cs.owner].cfg.MaxAttempts
	}
	if maxAttempts > 0 && int(cs.attempts) >= maxAttempts {
		w.failCall(c)
		return
	}
	cs.phase = callBackoff
	w.eng.After(w.gw.retryDelay(cs.attempts, retryAfter), evRetry, c, 0)
}

// retry: a call's backoff is over. Production calls go straight back to the
// provider, evaluation calls to the tail of the gateway queue.
func (w *World) retry(c int32) {
	cs := &w.calls[c]
	if cs.kind == productionCall {
		w.send(c)
		return
	}
	w.enqueueCall(c)
	w.dispatch(cs.model)
}
