package sim

import (
	"github.com/evalsched/lab/workloads"
)

// A call's path: created by its owner → (evaluation calls) queued at the
// gateway and sent while the lane's in-flight limit allows → a try offered
// to the provider: accepted (served on a stream, or waiting for one) or
// rejected (outage or 429 → backoff → retry, or given up) → answered. Its
// owner hears of acceptance and of the end.

// callKind says who made a call and so who hears of its outcome.
type callKind uint8

const (
	jobCall        callKind = iota // a turn of an evaluation job; owner is the job's running slot
	productionCall                 // a production request; owner is the stream index
)

// Call phases.
const (
	callQueued uint8 = iota
	callBackoff
	callProvider
)

type callState struct {
	owner    int32 // job's running slot or production stream, by kind
	kind     callKind
	phase    uint8
	model    int32
	in, out  int32
	attempts int32
	// maxOut is the max_tokens the call asks for (0: none); cacheRead and
	// cacheWrite the part of in read from and written to the prompt cache
	// at its last try, miss why it missed a cache it had (cacheMiss*).
	// recorded: cacheRead and cacheWrite are a trace's record, replayed
	// as recorded at every try instead of the cache model's split.
	maxOut, cacheRead, cacheWrite int32
	miss                          uint8
	recorded                      bool
	// base and jitter are the call's unloaded latency in seconds and the
	// factor of its variation draw, computed when the call is made: their
	// arithmetic (a division, a normal quantile and an exponential) then
	// runs beside the gateway's work instead of holding up the answer's
	// scheduling when a stream takes the call.
	base, jitter float64
	queuedAt     Time
	born         Time
	serial       int64
}

// newCall takes a call slot; its caller emits obsCallMade once the call
// is where it goes first (a job's: its gateway queue). rec is what a trace recorded of the call
// (zero: nothing): its max_tokens replaces maxOut, and its cache read and
// write, when it has either, are the call's at every try.
func (w *World) newCall(kind callKind, owner, model int32, in, out, maxOut int, rec workloads.CallRecord, u float64) int32 {
	c := takeSlot(&w.calls, &w.freeC)
	if rec.MaxTokens > 0 {
		maxOut = rec.MaxTokens
	}
	d := &w.prov.models[model]
	base, jitter := d.base(out), d.jit.factor(u)
	// Zeroed, then written field by field: a whole literal is built
	// beside the table and copied in.
	cs := &w.calls[c]
	*cs = callState{}
	cs.kind, cs.owner, cs.model = kind, owner, model
	cs.in, cs.out, cs.maxOut = int32(in), int32(out), int32(maxOut)
	cs.base, cs.jitter, cs.serial, cs.born = base, jitter, w.serial, w.now()
	if rec.CacheRead > 0 || rec.CacheWrite > 0 {
		cs.cacheRead, cs.cacheWrite, cs.recorded = int32(rec.CacheRead), int32(rec.CacheWrite), true
	}
	w.serial++
	return c
}

// enqueueCall puts an evaluation call at the tail of its model's gateway
// queue and returns the queue's depth.
func (w *World) enqueueCall(c int32) int32 {
	cs := &w.calls[c]
	cs.phase = callQueued
	cs.queuedAt = w.now()
	return int32(w.gw.push(cs.model, c))
}

// dispatch sends queued calls while the gateway's in-flight limit allows,
// and, on a pacing key (a self-throttle), while the key's caps allow. An
// empty queue (most answers find one) sends nothing and arms no pacing
// wake-up: that test is small enough to be inlined in the callers.
func (w *World) dispatch(model int32) {
	if w.gw.lanes[model].queue.Len() != 0 {
		w.dispatchQueued(model)
	}
}

// dispatchQueued is dispatch's loop.
func (w *World) dispatchQueued(model int32) {
	// The lane and whether the model paces are taken once: a send changes
	// the lane's fields (read again each turn), never where it is, and a
	// model's pacing is fixed for the run.
	l, paces := &w.gw.lanes[model], w.prov.models[model].paces
	for {
		if paces && !w.paced(model) {
			return
		}
		c, ok := l.pop()
		if !ok {
			return
		}
		w.send(c, int32(l.queue.Len()))
	}
}

// send offers one try of a call to the provider; depth is its gateway
// queue's depth when the try left it (dispatch), notQueued when it did not
// wait there (a production call, a retry from a held slot).
func (w *World) send(c int32, depth int32) {
	cs := w.try(c)
	d := &w.prov.models[cs.model]
	cached := d.caches && cs.kind == jobCall && w.cacheSplit(cs)
	v, retryAfter, burned, counted := w.prov.offer(d, cs.model, w.now(), cs.tokens(), cs.source())
	w.gw.tried(cs.model)
	w.emitTry(c, cs, v, burned, depth, counted)
	switch v {
	case rejectedKey:
		w.gw.rejected(cs.model)
		if cs.kind == jobCall {
			w.gw.iaRateLimited(cs.model, w.now())
		}
		w.rejectedTry(c, retryAfter)
		return
	case rejectedOutage:
		w.backoff(c, 0)
		return
	case rejected429:
		w.gw.rejected(cs.model)
		if cs.kind == jobCall {
			w.gw.lanes[cs.model].throttled++
			w.gw.congested(cs.model, w.now())
			w.gw.iaRateLimited(cs.model, w.now())
		}
		w.rejectedTry(c, retryAfter)
		return
	}
	cs.phase = callProvider
	if cached {
		w.cacheUsed(cs)
	}
	free := d.accept(c)
	if cs.kind == jobCall {
		w.gw.sent(cs.model)
		w.gw.iaAcquired(cs.model, w.now())
		w.callAccepted(cs.owner)
		if free {
			w.gw.clean(cs.model)
		} else {
			w.gw.congested(cs.model, w.now())
		}
	}
	if free {
		w.serve(c, cs, d)
	}
}

// try counts a try of call c and returns its slot. Send's first line: the
// lines of send's calls keep their offsets, by which the PGO profile
// (cmd/sim/default.pgo) finds them hot.
func (w *World) try(c int32) *callState {
	cs := &w.calls[c]
	cs.attempts++
	return cs
}

// rejectedTry backs a rejected call off, or fails it (and its job) when
// it can never fit (retryAfter is neverFits: larger than a quota or a key's budget).
func (w *World) rejectedTry(c int32, retryAfter Time) {
	cs := &w.calls[c]
	if retryAfter == neverFits {
		if cs.kind == jobCall {
			w.running.at(cs.owner).failed = true
		}
		w.failCall(c)
		return
	}
	w.backoff(c, retryAfter)
}

// tokens is the call's tokens as the provider reads them.
func (cs *callState) tokens() callTokens {
	return callTokens{in: cs.in, cacheRead: cs.cacheRead, out: cs.out, maxOut: cs.maxOut}
}

// source is who the call's tries are counted for in the quota windows.
func (cs *callState) source() source {
	if cs.kind == productionCall {
		return srcProd
	}
	return srcEval
}

// paced reports whether the next queued call of a model that paces may be
// sent now under its pacing key; if not, a wake-up is scheduled for when it
// may.
func (w *World) paced(model int32) bool {
	c, ok := w.gw.peek(model)
	if !ok {
		return true
	}
	cs := &w.calls[c]
	if cs.kind == jobCall {
		w.cacheSplit(cs)
	}
	wait := w.prov.paceWait(model, w.now(), cs.tokens())
	if wait == 0 {
		return true
	}
	if l := &w.gw.lanes[model]; !l.paceArmed {
		l.paceArmed = true
		w.eng.postAfter(wait, evPace, model)
	}
	return false
}

// serve starts call c (its slot cs) on a stream of its deployment d.
func (w *World) serve(c int32, cs *callState, d *deployment) {
	model := cs.model // (a line here keeps the calls' offsets: see try)
	lat := w.prov.start(d, cs.base, cs.jitter)
	w.emitCallServed(c, model, int32(d.busy))
	if w.cacheWrites(cs) {
		w.cacheBegun(c, cs, lat)
	}
	w.eng.postAfter(lat, evCallDone, c)
}

// serveWaiting starts accepted calls waiting for a stream while streams
// are free; the common case, none waiting, is told inline in the callers.
func (w *World) serveWaiting(model int32) {
	if w.prov.models[model].waiting.Len() != 0 {
		w.serveWaitingCalls(model)
	}
}

// serveWaitingCalls is serveWaiting's loop.
func (w *World) serveWaitingCalls(model int32) {
	for {
		c, ok := w.prov.next(model)
		if !ok {
			return
		}
		w.serve(c, &w.calls[c], &w.prov.models[model])
	}
}

// callDone: the provider answered a call.
func (w *World) callDone(c int32) {
	cs := &w.calls[c]
	model, d := cs.model, &w.prov.models[cs.model]
	d.done()
	settled, counted := false, 0.0
	if d.settles {
		settled, counted = true, w.prov.answered(model, w.now(), cs.tokens(), cs.source())
	}
	w.emitCallAnswered(c, cs, int32(d.busy), settled, counted)
	w.serveWaiting(model)
	if cs.kind == productionCall {
		w.freeC = append(w.freeC, c)
		return
	}
	w.gw.answered(model)
	if cs.attempts == 1 {
		w.gw.iaSucceeded(model, w.now())
	}
	w.gw.answeredCall(model, w.now()-cs.born)
	w.callEnded(c, cs.owner, true)
	w.dispatch(model)
}

// failCall gives up on a call; a job's turn goes on without it.
func (w *World) failCall(c int32) {
	cs := &w.calls[c]
	w.emit(&obs{kind: obsCallFailed, id: c})
	if cs.kind == productionCall {
		w.freeC = append(w.freeC, c)
		return
	}
	w.callEnded(c, cs.owner, false)
}

// backoff schedules the retry of a rejected call, or gives up on it after
// its owner's max attempts.
func (w *World) backoff(c int32, retryAfter Time) {
	cs := &w.calls[c]
	maxAttempts := w.sc.Gateway.Retry.MaxAttempts
	if cs.kind == productionCall {
		maxAttempts = w.prod[cs.owner].maxAttempts()
	}
	if maxAttempts > 0 && int(cs.attempts) >= maxAttempts {
		w.failCall(c)
		return
	}
	cs.phase = callBackoff
	var delay Time
	if cs.kind == productionCall {
		delay = w.prod[cs.owner].retryDelay(&w.gw, cs.attempts, retryAfter)
	} else {
		delay = w.gw.retryDelay(cs.attempts, retryAfter)
		w.gw.backoffStarted(cs.model)
		if w.gw.hold {
			w.gw.sent(cs.model) // the slot is held through the backoff
		}
	}
	w.eng.postAfter(delay, evRetry, c)
}

// retry: a call's backoff is over. Production calls go straight back to the
// provider, evaluation calls to the tail of the gateway queue.
func (w *World) retry(c int32) {
	cs := &w.calls[c]
	if cs.kind == productionCall {
		w.send(c, notQueued)
		return
	}
	w.gw.backoffEnded(cs.model)
	if w.gw.hold {
		// Retry from the held slot: give it back and send at once (a try
		// the provider takes takes a slot again; nothing else runs between).
		w.gw.answered(cs.model)
		w.send(c, notQueued)
		w.dispatch(cs.model)
		return
	}
	w.emit(&obs{kind: obsCallQueued, id: c, model: cs.model, n: w.enqueueCall(c)})
	w.dispatch(cs.model)
}
