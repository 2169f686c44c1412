package sim

// The world's observations: each state change of the data path that
// something measures is one typed value, emitted once where the change is
// made (World.emit) and consumed by the observers: the recorder (what a run
// measures), the tracer (spans, with Options.Spans) and the event log
// (with Options.Log). The data path calls no observer itself, so a call's
// path (calls.go) and a job's (jobs.go) read as the changes they make.
//
// Observers run synchronously, in the order recorder, tracer, event log,
// right after the change and before anything else happens: they read the
// world as the change left it (the call and job tables, the clock) and
// never change it.

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
// others (tracer, event log) when set.
func (w *World) emit(o *obs) {
	w.rec.observe(w, o)
	if w.tr != nil || w.log != nil {
		w.observeOthers(o)
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
