package sim

import (
	"fmt"
)

// EventKind tells a Handler what an Event means. Its values are chosen by
// the code that owns the Handler.
type EventKind uint16

// Event is one dispatched occurrence. A and B are payload chosen by the
// owner of the Handler (for example a job and a worker index).
type Event struct {
	At   Time
	Kind EventKind
	A, B int32
}

// Handler receives events from Engine.Step and Engine.RunUntil. Dispatch
// is a single interface call per event; Handle may Schedule and Cancel on
// the engine that is calling it.
type Handler interface {
	Handle(ev Event)
}

// Handle identifies a scheduled event so that it can be cancelled. The zero
// Handle means "no timer". A Handle goes stale once its event fires or is
// cancelled; cancelling a stale Handle is a harmless no-op, even after the
// engine has reused the event's storage.
type Handle struct {
	slot int32
	gen  uint32
}

// Valid reports whether h is non-zero, i.e. was returned by Schedule or
// After. It does not say whether the event is still pending.
func (h Handle) Valid() bool { return h.gen != 0 }

// engineEntry is one queued event: its time, its slot and the slot's
// generation when it was scheduled (an entry whose slot has moved on was
// cancelled and is skipped), 16 bytes. An event posted without a Handle
// (post) carries its payload here instead: gen is inlineEvent|kind and slot
// is A (B is 0), so that it takes no slot and dispatching it reads no slot:
// one cache miss less per event.
type engineEntry struct {
	at   Time
	slot int32
	gen  uint32
}

// inlineEvent marks an entry that carries its own payload; slot
// generations stay below it.
const inlineEvent = 1 << 31

// engineSlot holds an event's payload. gen changes every time the slot is
// released, which invalidates outstanding Handles to it.
type engineSlot struct {
	gen  uint32
	kind EventKind
	a, b int32
}

// Engine is a virtual-clock discrete-event engine.
//
// Pending events sit in a radix heap with a rung (engine_queue.go). Virtual
// time never goes back, so an event is filed in bucket bits.Len(at XOR
// last), where last is no later than any queued event; buckets of higher
// index hold later times. Bucket 0 is the front: a run sorted by (At,
// sequence) from head on, earlier than every other queued event. When it
// runs dry, refill takes what comes next:
//
//   - the lowest non-empty bucket, if it holds at most sortedFrontMax
//     events, becomes the front whole, sorted in place (a stable insertion
//     sort), and its earliest time becomes last;
//   - a larger one, of at most rungSpreadMax events, is spread over the rung:
//     rungMax rungs of one power-of-two width, from the bucket's earliest
//     time on, wide enough to reach all but 1/64 of its events (a few far
//     ahead would make every rung wide and crowded). While rungs are left,
//     every new event in the rung's range is appended to its rung, and refill
//     gathers the next non-empty rungs into the front, each sorted, while
//     they fit in sortedFrontMax (two words of bitmap find them). The rest of
//     the bucket's range, past the rung, is appended to the bucket itself,
//     which is spread (or sorted) again once the rung is spent; later times
//     go to the higher buckets as before.
//   - A rung of more than sortedFrontMax events (many at a few times) goes
//     back to the buckets below the spread one, refiled under the rung's
//     start, as do new events before that rung's end; they come first. Such
//     a bucket larger than sortedFrontMax, and any bucket larger than
//     rungSpreadMax (its rungs would be crowded), is refiled under its lower
//     bound (last's bits above its own bit, that bit set, the rest clear):
//     no later than any of its events, and no scan for the earliest.
//
// Under the world's load (hundreds to thousands pending, seconds ahead) an
// event is moved about twice on its way to the front: into its rung, then
// gathered (World/scheduler: 2.1 moves an event, against 4.7 — filed, then
// refiled 3.7 times — when every large bucket was refiled bit by bit). An
// event scheduled no later than the front's last entry is inserted into the
// front in order, shifting the shorter side: the entries after it one slot
// back, or those before it one slot forward into the spent slot before head,
// so an event due before the whole front (one posted for now while later
// ones wait) moves nothing. Events at equal times always share a bucket or
// rung and keep their scheduling order through every move and sort, so they
// fire in the order they were scheduled — the (At, sequence) order — without
// a sequence number. Scheduling is O(1): an append. The payload lives in a
// slab of slots reused via a free list; per-slot generations make stale
// Handles harmless, and Cancel releases the slot and leaves the queued entry
// to be skipped when it comes up; an event posted without a Handle (post,
// all the world's events) takes no slot at all. PeekTime refills too; an
// event then scheduled before the time it found goes into the front, or, if
// Cancel has emptied the queue since, last moves back to it (rebase, rare).
// Nothing is allocated per event once the slices have grown; the rung's room
// (rungMax×rungRoom entries, 1 MiB, one block) is allocated at the first
// spread, and a rung grown past rungKeep entries goes back to it at the
// next.
//
// An Engine is not safe for concurrent use.
type Engine struct {
	buckets  [radixBuckets][]engineEntry
	nonEmpty uint64 // bit k set: buckets[k] may hold entries (bit 0, the front's, is not kept)
	head     int    // next entry of buckets[0]
	last     Time   // the time buckets are filed against: <= every entry of buckets[1:]

	// The rung, in use while ovSpan is not 0: bucket rungK's range from
	// rungBase on. [rungBase, rungBase+rungSpan) is in rungs of
	// 1<<rungShift each, the part before rungBase+lowSpan gone back to the
	// buckets below rungK; the rest up to rungBase+ovSpan goes to bucket
	// rungK itself.
	rung      [][]engineEntry // rungMax long once made
	rungBlock []engineEntry   // rungRoom entries of room for each rung
	rungOcc   [rungWords]uint64
	rungSum   uint64 // bit w set: rungOcc[w] is not 0
	rungBase  Time
	ovSpan    uint64
	rungSpan  uint64
	lowSpan   uint64
	rungShift uint
	rungK     uint

	slots     []engineSlot
	free      []int32 // released slot indices, used LIFO
	now       Time
	pending   int
	processed uint64
}

// NewEngine returns an empty engine with its clock at zero.
func NewEngine() *Engine {
	return &Engine{}
}

// Now returns the current virtual time: the time of the event being (or
// last) dispatched, or the end passed to RunUntil if that is later.
func (e *Engine) Now() Time { return e.now }

// Pending returns the number of events scheduled and not yet fired or
// cancelled.
func (e *Engine) Pending() int { return e.pending }

// Processed returns the number of events dispatched so far.
func (e *Engine) Processed() uint64 { return e.processed }

// PeekTime returns the time of the next pending event, and false if there
// is none.
func (e *Engine) PeekTime() (Time, bool) {
	if b0 := e.buckets[0]; e.head < len(b0) && b0[e.head].gen&inlineEvent != 0 {
		return b0[e.head].at, true
	}
	return e.peekSlow()
}

// peekSlow is PeekTime when the next entry is not a posted event at head:
// the front may need skipping or refilling.
func (e *Engine) peekSlow() (Time, bool) {
	if !e.front() {
		return 0, false
	}
	return e.buckets[0][e.head].at, true
}

// Schedule arranges for an event (kind, a, b) to be dispatched at time at.
// Events at equal times are dispatched in the order they were scheduled.
// It panics if at is before Now.
func (e *Engine) Schedule(at Time, kind EventKind, a, b int32) Handle {
	e.notBeforeNow(at)
	var slot int32
	if n := len(e.free); n > 0 {
		slot = e.free[n-1]
		e.free = e.free[:n-1]
	} else {
		slot = int32(len(e.slots))
		e.slots = append(e.slots, engineSlot{gen: 1})
	}
	s := &e.slots[slot]
	s.kind, s.a, s.b = kind, a, b
	e.enqueue(engineEntry{at: at, slot: slot, gen: s.gen})
	e.pending++
	return Handle{slot: slot, gen: s.gen}
}

// notBeforeNow panics if at is before Now: virtual time never goes back.
func (e *Engine) notBeforeNow(at Time) {
	if at < e.now {
		panic(fmt.Sprintf("sim: Schedule at %v, before now %v", at, e.now))
	}
}

// After is Schedule(Now()+d, kind, a, b). It panics if d is negative.
func (e *Engine) After(d Time, kind EventKind, a, b int32) Handle {
	return e.Schedule(e.now+d, kind, a, b)
}

// post is Schedule(at, kind, a, 0) for an event that is never cancelled:
// no Handle, no slot (the payload rides in the queue entry). It fires in
// the same order Schedule's would.
func (e *Engine) post(at Time, kind EventKind, a int32) {
	e.notBeforeNow(at)
	e.enqueue(engineEntry{at: at, slot: a, gen: inlineEvent | uint32(kind)})
	e.pending++
}

// postAfter is post(Now()+d, kind, a).
func (e *Engine) postAfter(d Time, kind EventKind, a int32) {
	e.post(e.now+d, kind, a)
}

// Cancel removes the pending event identified by h and reports whether it
// did. It returns false for the zero Handle and for events that already
// fired or were cancelled.
func (e *Engine) Cancel(h Handle) bool {
	if h.gen == 0 || uint(h.slot) >= uint(len(e.slots)) {
		return false
	}
	if e.slots[h.slot].gen != h.gen {
		return false
	}
	e.release(h.slot)
	e.pending--
	return true
}

// Step dispatches the next event: it removes it, advances the clock to its
// time and calls h.Handle. It returns false, doing nothing, if no event is
// pending. The event's Handle is stale by the time h runs.
func (e *Engine) Step(h Handler) bool {
	if !e.front() {
		return false
	}
	e.stepPeeked(h)
	return true
}

// stepPeeked is Step right after PeekTime found an event, with nothing
// scheduled or cancelled since: the front is already in place.
func (e *Engine) stepPeeked(h Handler) {
	h.Handle(e.popPeeked())
}

// popPeeked removes the event PeekTime found, advances the clock to it and
// returns it, for the caller to dispatch (World.run calls its own Handle
// directly, not through the Handler interface).
func (e *Engine) popPeeked() Event {
	top := e.buckets[0][e.head]
	e.head++
	e.pending--
	e.now = top.at
	e.processed++
	costgateSlow()
	if top.gen&inlineEvent != 0 {
		return Event{At: top.at, Kind: EventKind(top.gen), A: top.slot}
	}
	return e.slotEvent(top)
}

// popBefore is PeekTime and popPeeked in one call for a run loop: it
// removes and returns the next event if that is a posted event due at or
// before end, at the front already, and fewer than stop events have been
// processed; otherwise it returns false, changing nothing, and the caller
// takes the long way.
func (e *Engine) popBefore(end Time, stop uint64) (Event, bool) {
	b0 := e.buckets[0]
	if e.head >= len(b0) || e.processed >= stop {
		return Event{}, false
	}
	top := b0[e.head]
	if top.at > end || top.gen&inlineEvent == 0 {
		return Event{}, false
	}
	e.head++
	e.pending--
	e.now = top.at
	e.processed++
	costgateSlow()
	return Event{At: top.at, Kind: EventKind(top.gen), A: top.slot}, true
}

// slotEvent reads a Schedule'd event's payload and releases its slot.
func (e *Engine) slotEvent(top engineEntry) Event {
	s := &e.slots[top.slot]
	ev := Event{At: top.at, Kind: s.kind, A: s.a, B: s.b}
	e.release(top.slot)
	return ev
}

// RunUntil dispatches, in order, every event with At <= end, including
// events that handlers schedule along the way, and then advances the clock
// to end if it is later than Now.
func (e *Engine) RunUntil(end Time, h Handler) {
	for e.front() && e.buckets[0][e.head].at <= end {
		e.Step(h)
	}
	if end > e.now {
		e.now = end
	}
}

// release invalidates Handles to slot and puts it on the free list.
func (e *Engine) release(slot int32) {
	s := &e.slots[slot]
	s.gen++
	if s.gen == inlineEvent { // wrapped: keep 0 meaning "no timer", and below inlineEvent
		s.gen = 1
	}
	e.free = append(e.free, slot)
}
