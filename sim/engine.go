package sim

import (
	"fmt"
	"math"
	"slices"
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

// engineEntry is one heap element: the full ordering key and the slot
// index inline, 16 bytes, so sifting never dereferences the slab to
// compare and four siblings share a cache line.
type engineEntry struct {
	at   Time
	seq  uint32
	slot int32
}

// engineSlot holds an event's payload. gen changes every time the slot is
// released, which invalidates outstanding Handles to it.
type engineSlot struct {
	gen  uint32
	kind EventKind
	a, b int32
}

// Engine is a virtual-clock discrete-event engine.
//
// Pending events sit in an indexed 4-ary min-heap ordered by (At, seq),
// seq being a Schedule counter, so equal times fire in scheduling order.
// Heap entries hold that key and a slot index inline; the payload lives in
// a slab of slots, a parallel array maps each slot to its heap position
// (making Cancel an O(log n) removal), freed slots are reused via a free
// list, and per-slot generations make stale Handles harmless. seq is 32
// bits; before it wraps, pending events are renumbered in order (see
// renumber). Nothing is allocated per event once the slices have grown.
//
// An Engine is not safe for concurrent use.
type Engine struct {
	heap      []engineEntry
	slots     []engineSlot
	pos       []int32 // pos[slot] is the slot's index in heap while pending
	free      []int32 // released slot indices, used LIFO
	now       Time
	seq       uint32 // next sequence number
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
func (e *Engine) Pending() int { return len(e.heap) }

// Processed returns the number of events dispatched so far.
func (e *Engine) Processed() uint64 { return e.processed }

// PeekTime returns the time of the next pending event, and false if there
// is none.
func (e *Engine) PeekTime() (Time, bool) {
	if len(e.heap) == 0 {
		return 0, false
	}
	return e.heap[0].at, true
}

// Schedule arranges for an event (kind, a, b) to be dispatched at time at.
// Events at equal times are dispatched in the order they were scheduled.
// It panics if at is before Now.
func (e *Engine) Schedule(at Time, kind EventKind, a, b int32) Handle {
	if at < e.now {
		panic(fmt.Sprintf("sim: Schedule at %v, before now %v", at, e.now))
	}
	var slot int32
	if n := len(e.free); n > 0 {
		slot = e.free[n-1]
		e.free = e.free[:n-1]
	} else {
		slot = int32(len(e.slots))
		e.slots = append(e.slots, engineSlot{gen: 1})
		e.pos = append(e.pos, 0)
	}
	s := &e.slots[slot]
	s.kind, s.a, s.b = kind, a, b
	gen := s.gen

	if e.seq == math.MaxUint32 {
		e.renumber()
	}
	seq := e.seq
	e.seq++
	i := len(e.heap)
	if i == cap(e.heap) {
		e.growHeap()
	}
	e.heap = e.heap[:i+1]
	e.siftUp(i, engineEntry{at: at, seq: seq, slot: slot})
	return Handle{slot: slot, gen: gen}
}

// After is Schedule(Now()+d, kind, a, b). It panics if d is negative.
func (e *Engine) After(d Time, kind EventKind, a, b int32) Handle {
	return e.Schedule(e.now+d, kind, a, b)
}

// Cancel removes the pending event identified by h and reports whether it
// did. It returns false for the zero Handle and for events that already
// fired or were cancelled.
func (e *Engine) Cancel(h Handle) bool {
	if h.gen == 0 || uint(h.slot) >= uint(len(e.slots)) {
		return false
	}
	s := &e.slots[h.slot]
	if s.gen != h.gen {
		return false
	}
	i := int(e.pos[h.slot])
	e.release(h.slot)

	last := len(e.heap) - 1
	x := e.heap[last]
	e.heap = e.heap[:last]
	if i == last {
		return true
	}
	if i > 0 && engineLess(x, e.heap[(i-1)>>2]) {
		e.siftUp(i, x)
	} else {
		e.siftDown(i, x)
	}
	return true
}

// Step dispatches the next event: it removes it, advances the clock to its
// time and calls h.Handle. It returns false, doing nothing, if no event is
// pending. The event's Handle is stale by the time h runs.
func (e *Engine) Step(h Handler) bool {
	if len(e.heap) == 0 {
		return false
	}
	top := e.heap[0]
	// Read the payload and release the slot before sifting: the slab load
	// is then overlapped with the sift's loads instead of following them.
	s := &e.slots[top.slot]
	ev := Event{At: top.at, Kind: s.kind, A: s.a, B: s.b}
	e.release(top.slot)

	last := len(e.heap) - 1
	x := e.heap[last]
	e.heap = e.heap[:last]
	if last > 0 {
		e.siftDown(0, x)
	}
	e.now = top.at
	e.processed++
	h.Handle(ev)
	return true
}

// RunUntil dispatches, in order, every event with At <= end, including
// events that handlers schedule along the way, and then advances the clock
// to end if it is later than Now.
func (e *Engine) RunUntil(end Time, h Handler) {
	for len(e.heap) > 0 && e.heap[0].at <= end {
		e.Step(h)
	}
	if end > e.now {
		e.now = end
	}
}

// heapAlign is how many unused entries precede heap[0] in its backing
// array. With 16-byte entries and a 64-byte-aligned array (true of the
// large allocations where it matters) it makes the four children
// 4i+1..4i+4 of every node share one cache line.
const heapAlign = 3

// growHeap doubles the heap's capacity, keeping heapAlign entries in front
// of it, which plain append would not.
func (e *Engine) growHeap() {
	n := 2 * cap(e.heap)
	if n < 64 {
		n = 64
	}
	backing := make([]engineEntry, heapAlign+len(e.heap), heapAlign+n)
	copy(backing[heapAlign:], e.heap)
	e.heap = backing[heapAlign:]
}

// release invalidates Handles to slot and puts it on the free list.
func (e *Engine) release(slot int32) {
	s := &e.slots[slot]
	s.gen++
	if s.gen == 0 { // wrapped: keep 0 meaning "no timer"
		s.gen = 1
	}
	e.free = append(e.free, slot)
}

func engineLess(x, y engineEntry) bool {
	return x.at < y.at || (x.at == y.at && x.seq < y.seq)
}

// siftUp places x, which belongs at heap index i or above, moving parents
// down into the hole as needed.
func (e *Engine) siftUp(i int, x engineEntry) {
	h, pos := e.heap, e.pos
	for i > 0 {
		p := (i - 1) >> 2
		pe := h[p]
		if !engineLess(x, pe) {
			break
		}
		h[i] = pe
		pos[pe.slot] = int32(i)
		i = p
	}
	h[i] = x
	pos[x.slot] = int32(i)
}

// siftDown places x, which belongs at heap index i or below, moving the
// smallest child up into the hole as needed.
func (e *Engine) siftDown(i int, x engineEntry) {
	h, pos := e.heap, e.pos
	n := len(h)
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m, me := c, h[c]
		if c+3 < n {
			// Common case: four children; compare them as two pairs.
			c1, c2, c3 := h[c+1], h[c+2], h[c+3]
			if engineLess(c1, me) {
				m, me = c+1, c1
			}
			m2, me2 := c+2, c2
			if engineLess(c3, c2) {
				m2, me2 = c+3, c3
			}
			if engineLess(me2, me) {
				m, me = m2, me2
			}
		} else {
			for j := c + 1; j < n; j++ {
				if engineLess(h[j], me) {
					m, me = j, h[j]
				}
			}
		}
		if !engineLess(me, x) {
			break
		}
		h[i] = me
		pos[me.slot] = int32(i)
		i = m
	}
	h[i] = x
	pos[x.slot] = int32(i)
}

// renumber reassigns sequence numbers 0..n-1 to the pending events in
// their (at, seq) order and resets the counter to n. Relative order among
// pending events is unchanged and every later event gets a larger seq, so
// dispatch order is exactly as if seq never wrapped. A sorted array is a
// valid heap, so only positions need updating. It runs once per ~4e9
// Schedule calls.
func (e *Engine) renumber() {
	slices.SortFunc(e.heap, func(x, y engineEntry) int {
		if engineLess(x, y) {
			return -1
		}
		return 1 // keys are unique
	})
	for i := range e.heap {
		e.heap[i].seq = uint32(i)
		e.pos[e.heap[i].slot] = int32(i)
	}
	e.seq = uint32(len(e.heap))
}
