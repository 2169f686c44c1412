package sim

// The world's observations: each state change of the data path that
// something measures is one typed value, emitted once where the change is
// made (World.emit) and consumed by the observers: the recorder (what a run
// measures), the tracer (spans, with Options.Spans) and the event log
// (with Options.Log). The data path calls no observer itself, so a call's
// path (calls.go) and a job's (jobs.go) read as the changes they make.
//
// Observers run synchronously, right after the change and before anything
// else happens: they read the world as the change left it (the call and
// job tables, the clock) and never change it, nor read one another, so
// their order is free (emit and the per-call emitters run the tracer,
// the event log, then the recorder).

// obsKind is what changed.
type obsKind uint8

const (
	// obsJobArrived: the job in waiting slot id arrived; flag: its batch is new.
	obsJobArrived obsKind = iota + 1
	// obsJobStarted: the job in running slot id took a container; n: its
	// model's running jobs now.
	obsJobStarted
	// obsJobEnded: the job in running slot id left its container (completed,
	// or failed); n: its model's running jobs now; flag: its batch ended.
	obsJobEnded
	// obsGatewayOnly: a job of model started (flag) or stopped holding its
	// container only to wait on the gateway.
	obsGatewayOnly
	// obsToolStep: the job in running slot id began a tool step of d.
	obsToolStep
	// obsCallMade: call id of model was made (an evaluation job's turn or
	// a production request); n: the depth of the gateway queue it joined,
	// or notQueued (a production request goes to the provider at once).
	obsCallMade
	// obsCallQueued: call id, backed off, joined model's gateway queue
	// again; n: the queue's depth now.
	obsCallQueued
	// obsTry: a try of call id was offered to the provider: verdict; when
	// rejected by a quota, flag: the try was burned (counted anyway); when
	// accepted, x: the tokens its organisation counted. n: the
	// depth of the gateway queue the try left, or notQueued when it did not
	// wait there.
	obsTry
	// obsCallServed: call id took a provider stream; n: the model's busy
	// streams now.
	obsCallServed
	// obsCacheReady: call id, served, wrote its job's prompt cache; the
	// entry is readable from d.
	obsCacheReady
	// obsCallAnswered: the provider answered call id; n: the model's busy
	// streams now; flag: the call settled with org counting x more tokens.
	obsCallAnswered
	// obsCallFailed: the gateway gave up on call id.
	obsCallFailed
	// obsStreams: model's provider streams are n now.
	obsStreams
	// obsProdArrived: a request of production stream id arrived.
	obsProdArrived
	// obsBatch: batch request id had event ev (submit, refuse, enqueue,
	// done, expire).
	obsBatch
	// obsSample: a series sample was taken.
	obsSample
)

// notQueued is the n of an obsCallMade that joined no gateway queue, and
// of an obsTry that left none.
const notQueued = -1

// obs is one observation. Which fields mean something depends on kind
// (see obsKind); it is small, since one is built at every change.
type obs struct {
	kind    obsKind
	verdict verdict
	flag    bool
	ev      LogEvent
	id      int32 // a call, job slot (waiting: obsJobArrived, else running), production stream or batch request
	model   int32
	n       int32 // a level's value after the change
	d       Time
	x       float64
}

// emit hands an observation to the observers: the recorder always, the
// others (tracer, event log) when set (w.others).
func (w *World) emit(o *obs) {
	if w.others {
		w.observeOthers(o)
	}
	w.rec.observe(w, o)
}

// A job's observations (three a job) have emitters of their own, as the
// per-call ones below: each builds the observation only for the other
// observers and calls the recorder's handler of its kind directly.

// emitJobArrived is emit of an obsJobArrived of the job in waiting slot
// slot; fresh: its batch is new.
func (w *World) emitJobArrived(slot int32, fresh bool) {
	if w.others {
		w.observeOthers(&obs{kind: obsJobArrived, id: slot, flag: fresh})
	}
	w.rec.jobArrived(w.jobs.at(slot), fresh)
}

// emitJobStarted is emit of an obsJobStarted of the job in running slot
// slot, its model's running jobs now running.
func (w *World) emitJobStarted(slot int32, running int) {
	if w.others {
		w.observeOthers(&obs{kind: obsJobStarted, id: slot, n: int32(running)})
	}
	w.rec.jobStarted(w.running.at(slot), running)
}

// emitJobEnded is emit of an obsJobEnded of the job in running slot slot,
// its model's running jobs now running; ended: its batch ended.
func (w *World) emitJobEnded(slot int32, running int, ended bool) {
	if w.others {
		w.observeOthers(&obs{kind: obsJobEnded, id: slot, n: int32(running), flag: ended})
	}
	w.rec.jobEnded(w.running.at(slot), running, ended)
}

// The per-call observations (a job's call made, a try, a call served or
// answered, a job's gateway-only change, a tool step) have emitters of
// their own: each builds the observation only when another observer is
// set, and calls the recorder's handling of its kind directly, as
// recorder.observe does, last (the others read nothing the recorder keeps,
// so the order is free, and a last call keeps nothing live across it). At
// several observations a call, emit's call and switch were a measurable
// part of a call's cost.

// emitCallMade is emit of an obsCallMade: call c of model, in a gateway
// queue now depth deep (or notQueued).
func (w *World) emitCallMade(c, model, depth int32) {
	if w.others {
		w.observeOthers(&obs{kind: obsCallMade, id: c, model: model, n: depth})
	}
	w.rec.callMade(model, depth)
}

// emitTry is emit of an obsTry of call c (cs).
func (w *World) emitTry(c int32, cs *callState, v verdict, burned bool, depth int32, counted float64) {
	if w.others {
		w.observeOthers(&obs{kind: obsTry, id: c, verdict: v, flag: burned, n: depth, x: counted})
	}
	w.rec.tried(w, cs, v, burned, depth, counted)
}

// emitCallServed is emit of an obsCallServed of call c of model.
func (w *World) emitCallServed(c, model, busy int32) {
	if w.others {
		w.observeOthers(&obs{kind: obsCallServed, id: c, model: model, n: busy})
	}
	w.rec.busy(model, int(busy))
}

// emitCallAnswered is emit of an obsCallAnswered of call c (cs).
func (w *World) emitCallAnswered(c int32, cs *callState, busy int32, settled bool, counted float64) {
	if w.others {
		w.observeOthers(&obs{kind: obsCallAnswered, id: c, n: busy, flag: settled, x: counted})
	}
	w.rec.callAnswered(w, cs, busy, settled, counted)
}

// emitGatewayOnly is emit of an obsGatewayOnly.
func (w *World) emitGatewayOnly(model int32, up bool) {
	if w.others {
		w.observeOthers(&obs{kind: obsGatewayOnly, model: model, flag: up})
	}
	w.rec.gatewayOnly(model, upDown(up))
}

// emitToolStep is emit of an obsToolStep, which the recorder does not measure.
func (w *World) emitToolStep(slot int32, d Time) {
	if w.others {
		w.observeOthers(&obs{kind: obsToolStep, id: slot, d: d})
	}
}

// observeOthers hands an observation to the tracer and the event log, those set.
func (w *World) observeOthers(o *obs) {
	if w.tr != nil {
		w.tr.observe(w, o)
	}
	if w.log != nil {
		w.log.observe(w, o)
	}
}
