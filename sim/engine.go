package sim

import (
	"fmt"
	"math/bits"
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

// radixBuckets is one bucket per possible highest differing bit of two
// non-negative times, plus bucket 0 for "equal". Times are never negative
// (the clock starts at zero and Schedule refuses the past), so they differ
// below bit 63.
const radixBuckets = 64

// Engine is a virtual-clock discrete-event engine.
//
// Pending events sit in a radix heap: virtual time never goes back, so an
// event is filed in bucket bits.Len(at XOR last), where last is no later
// than any queued event; buckets of higher index hold later times. Bucket 0
// is the front: a run sorted by (At, sequence) from head on, earlier than
// every other bucket. When it runs dry, the lowest non-empty bucket k is
// refiled into lower buckets in its order, under its lower bound: last's
// bits above k-1, bit k-1 set, the rest clear (those at exactly that time
// into bucket 0). That bound is no later than any of its events, and spares
// scanning the bucket for its earliest time at the price of a few more
// refilings (World/scheduler: 1.249M against 1.230M). A bucket of at most
// sortedFrontMax events — near the front, where buckets are small — is
// instead sorted into bucket 0 whole (a stable insertion sort), which spares
// refiling it bit by bit, one refill per event; its earliest time becomes
// last. An event scheduled no later than the front's last entry is inserted
// into the front in order, shifting the shorter side: the entries after it
// one slot back, or those before it one slot forward into the spent slot
// before head, so an event due before the whole front (one posted for now
// while later ones wait) moves nothing. Events at equal times always share a
// bucket and keep their scheduling order through every refiling and sort, so
// they fire in the order they were scheduled — the (At, sequence) order —
// without a sequence number. Each event is refiled at most once per bit of
// its distance in time: scheduling is O(1) and taking the next event O(log
// of the time span) amortised, with sequential memory access instead of a
// heap's scattered sifts. The payload lives in a slab of slots reused via a
// free list; per-slot generations make stale Handles harmless, and Cancel
// releases the slot and leaves the queued entry to be skipped when it comes
// up; an event posted without a Handle (post, all the world's events) takes
// no slot at all. PeekTime refills too; an event then scheduled before the
// time it found goes into the front, or, if the front was emptied by Cancel,
// every entry is refiled under the earlier time (rebase, rare). Nothing is
// allocated per event once the slices have grown.
//
// An Engine is not safe for concurrent use.
type Engine struct {
	buckets   [radixBuckets][]engineEntry
	nonEmpty  uint64 // bit k set: buckets[k] may hold entries (bit 0, the front's, is not kept)
	head      int    // next entry of buckets[0]
	last      Time   // the time buckets are filed against: <= every entry of buckets[1:]
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

// enqueue files a new entry: into the front if it is due no later than the
// front's last entry, else into its bucket.
func (e *Engine) enqueue(x engineEntry) {
	if b0, h := e.buckets[0], e.head; uint(h) < uint(len(b0)) && x.at <= b0[len(b0)-1].at {
		if h > 0 && x.at < b0[h].at {
			// Earlier than every entry of the front (an event posted for
			// now while later ones wait): into the spent slot before head,
			// nothing to shift.
			b0[h-1] = x
			e.head = h - 1
			return
		}
		e.insertFront(x)
		return
	}
	if x.at < e.last {
		e.rebase(x.at)
	}
	e.file(x)
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

// front makes buckets[0][head] the next live event, skipping cancelled
// entries and refiling as needed; false if no event is pending.
func (e *Engine) front() bool {
	for {
		b0 := e.buckets[0]
		for e.head < len(b0) {
			x := b0[e.head]
			if x.gen&inlineEvent != 0 || e.slots[x.slot].gen == x.gen {
				return true
			}
			e.head++ // cancelled
		}
		if !e.refill() {
			return false
		}
	}
}

// refill empties bucket 0 and refiles the lowest non-empty bucket under its
// lower bound, which may leave bucket 0 empty (front calls refill again);
// false if every bucket is empty. A bucket of at most
// sortedFrontMax entries instead becomes bucket 0 whole, sorted in place:
// near the front, where buckets are small, that saves the refiling of each
// entry down level after level, one refill per event.
func (e *Engine) refill() bool {
	e.buckets[0], e.head = e.buckets[0][:0], 0
	ne := e.nonEmpty &^ 1
	if ne == 0 {
		return false
	}
	k := bits.TrailingZeros64(ne)
	e.nonEmpty = ne &^ (1 << k)
	src := e.buckets[k]
	if len(src) <= sortedFrontMax {
		// The bucket becomes the front, sorted in place; the front's
		// spent storage becomes the bucket's.
		e.buckets[0], e.buckets[k] = src, e.buckets[0]
		for i := 1; i < len(src); i++ { // a stable insertion sort: equal times keep their order
			x := src[i]
			if src[i-1].at <= x.at {
				continue // in place already
			}
			j := i - 1
			src[i] = src[j]
			for ; j > 0 && src[j-1].at > x.at; j-- {
				src[j] = src[j-1]
			}
			src[j] = x
		}
		e.last = src[0].at
		return true
	}
	// Refile under the bucket's lower bound: last's bits above k-1, bit
	// k-1 set, the rest clear. It is no later than every entry of the
	// bucket and shares every bit from k up with last, so the higher
	// buckets stay filed as they are, and the entries, which differ from it
	// below bit k-1 only, go to lower buckets.
	e.buckets[k] = src[:0]
	e.last = (e.last>>(k-1) | 1) << (k - 1)
	e.refile(src)
	return true
}

// refile files every entry of src, each under last.
func (e *Engine) refile(src []engineEntry) {
	last, ne := e.last, e.nonEmpty
	for _, x := range src {
		// Len of 2v+1, less 1, is Len of v, and needs no case for v = 0.
		k := (bits.Len64(uint64(x.at^last)<<1|1) - 1) & 63
		e.buckets[k] = append(e.buckets[k], x)
		ne |= 1 << k
	}
	e.nonEmpty = ne
}

// sortedFrontMax is the largest bucket refill sorts into bucket 0.
const sortedFrontMax = 16

// insertFront puts x into bucket 0 after every live entry at or before its
// time. Bucket 0 is a sorted run from head on (by time, then scheduling
// order), every entry of which is earlier than any in the other buckets; an
// event scheduled no later than its last entry goes into it, in order. When
// an entry has been taken (head > 0) and x belongs in the first half of the
// run, the entries before it move one slot towards head instead of those
// after it one slot back.
func (e *Engine) insertFront(x engineEntry) {
	if h := e.head; h > 0 {
		b0 := e.buckets[0]
		if mid := h + (len(b0)-h)>>1; x.at < b0[mid].at {
			i := h
			for b0[i].at <= x.at {
				b0[i-1] = b0[i]
				i++
			}
			b0[i-1] = x
			e.head = h - 1
			return
		}
	}
	e.sortIn(x)
}

// sortIn appends x to bucket 0 and moves it back past every entry from head
// on that is later: one step of a stable insertion sort.
func (e *Engine) sortIn(x engineEntry) {
	b0 := append(e.buckets[0], x)
	i := len(b0) - 1
	for ; i > e.head && b0[i-1].at > x.at; i-- {
		b0[i] = b0[i-1]
	}
	b0[i] = x
	e.buckets[0] = b0
}

// file appends x to the bucket of its time relative to last.
func (e *Engine) file(x engineEntry) {
	k := (bits.Len64(uint64(x.at^e.last)<<1|1) - 1) & 63 // as in refile
	e.buckets[k] = append(e.buckets[k], x)
	e.nonEmpty |= 1 << k // no branch for bucket 0: refill ignores its bit
}

// rebase refiles every queued entry under a new, earlier last. PeekTime (or
// RunUntil stopping short) may have refilled with events later than now; an
// event then scheduled before them goes into bucket 0, unless Cancel has
// emptied it: then it needs this. The world never cancels, so this is rare.
func (e *Engine) rebase(last Time) {
	var all []engineEntry
	for k := range e.buckets {
		from := 0
		if k == 0 {
			from = e.head
		}
		all = append(all, e.buckets[k][from:]...)
		e.buckets[k] = e.buckets[k][:0]
	}
	e.head, e.last, e.nonEmpty = 0, last, 0
	for _, x := range all {
		e.file(x)
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
