package sim

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// engRecorder is a Handler that records what it is given and then runs an
// optional hook, which may Schedule and Cancel on the engine.
type engRecorder struct {
	got []Event
	on  func(ev Event)
}

func (r *engRecorder) Handle(ev Event) {
	r.got = append(r.got, ev)
	if r.on != nil {
		r.on(ev)
	}
}

// engPayloads returns the A payloads of evs, in order.
func engPayloads(evs []Event) []int32 {
	out := make([]int32, len(evs))
	for i, ev := range evs {
		out[i] = ev.A
	}
	return out
}

func engRunAll(e *Engine, h Handler) {
	for e.Step(h) {
	}
}

func TestEngineOrderByTimeThenSequence(t *testing.T) {
	tests := []struct {
		name   string
		n      int
		spread Time // times are drawn from [0, spread)
		seed   uint64
	}{
		{"single", 1, 1, 1},
		{"all equal times", 500, 1, 2},
		{"few distinct times", 2000, 7, 3},
		{"many equal times", 5000, 100, 4},
		{"mostly distinct", 5000, 1 << 40, 5},
		{"more than one heap level of ties", 20000, 3, 6},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(tc.seed, 0))
			type sched struct {
				at Time
				id int32
			}
			var want []sched
			e := NewEngine()
			for i := range tc.n {
				at := Time(r.Int64N(int64(tc.spread)))
				want = append(want, sched{at, int32(i)})
				e.Schedule(at, EventKind(i%3), int32(i), -int32(i))
			}
			// Brute force: a stable sort by time keeps scheduling order
			// among equal times.
			slices.SortStableFunc(want, func(x, y sched) int {
				switch {
				case x.at < y.at:
					return -1
				case x.at > y.at:
					return 1
				}
				return 0
			})

			rec := &engRecorder{}
			engRunAll(e, rec)
			if len(rec.got) != tc.n {
				t.Fatalf("dispatched %d events, want %d", len(rec.got), tc.n)
			}
			for i, ev := range rec.got {
				w := want[i]
				wantEv := Event{At: w.at, Kind: EventKind(w.id % 3), A: w.id, B: -w.id}
				if ev != wantEv {
					t.Fatalf("event %d = %+v, want %+v", i, ev, wantEv)
				}
			}
			if e.Pending() != 0 || e.Processed() != uint64(tc.n) {
				t.Errorf("Pending, Processed = %d, %d; want 0, %d", e.Pending(), e.Processed(), tc.n)
			}
		})
	}
}

func TestEngineSameTimeFromHandlerRunsAfterExisting(t *testing.T) {
	e := NewEngine()
	rec := &engRecorder{}
	rec.on = func(ev Event) {
		if ev.A == 1 {
			e.Schedule(ev.At, 0, 10, 0) // same time, scheduled later
			e.After(0, 0, 11, 0)
		}
	}
	e.Schedule(5, 0, 1, 0)
	e.Schedule(5, 0, 2, 0)
	e.Schedule(6, 0, 3, 0)
	engRunAll(e, rec)
	if got, want := engPayloads(rec.got), []int32{1, 2, 10, 11, 3}; !slices.Equal(got, want) {
		t.Errorf("order = %v, want %v", got, want)
	}
}

func TestEngineCancel(t *testing.T) {
	tests := []struct {
		name string
		// run sets up and exercises the engine, returning the payloads it
		// expects to be dispatched by a subsequent run to completion.
		run func(t *testing.T, e *Engine, rec *engRecorder) []int32
	}{
		{"zero handle", func(t *testing.T, e *Engine, rec *engRecorder) []int32 {
			var h Handle
			if h.Valid() {
				t.Error("zero Handle is Valid")
			}
			if e.Cancel(h) {
				t.Error("Cancel(zero) on empty engine = true")
			}
			e.Schedule(1, 0, 1, 0)
			if e.Cancel(h) {
				t.Error("Cancel(zero) = true")
			}
			return []int32{1}
		}},
		{"pending event", func(t *testing.T, e *Engine, rec *engRecorder) []int32 {
			e.Schedule(1, 0, 1, 0)
			h := e.Schedule(2, 0, 2, 0)
			e.Schedule(3, 0, 3, 0)
			if !h.Valid() {
				t.Error("handle from Schedule not Valid")
			}
			if !e.Cancel(h) {
				t.Error("Cancel(pending) = false")
			}
			if e.Pending() != 2 {
				t.Errorf("Pending = %d, want 2", e.Pending())
			}
			return []int32{1, 3}
		}},
		{"twice", func(t *testing.T, e *Engine, rec *engRecorder) []int32 {
			h := e.Schedule(1, 0, 1, 0)
			e.Schedule(1, 0, 2, 0)
			if !e.Cancel(h) {
				t.Error("first Cancel = false")
			}
			if e.Cancel(h) {
				t.Error("second Cancel = true")
			}
			if e.Pending() != 1 {
				t.Errorf("Pending = %d, want 1", e.Pending())
			}
			return []int32{2}
		}},
		{"already fired", func(t *testing.T, e *Engine, rec *engRecorder) []int32 {
			h := e.Schedule(1, 0, 1, 0)
			e.Schedule(2, 0, 2, 0)
			e.Step(rec)
			if e.Cancel(h) {
				t.Error("Cancel(fired) = true")
			}
			return []int32{1, 2}
		}},
		{"stale handle after slot reuse by cancel", func(t *testing.T, e *Engine, rec *engRecorder) []int32 {
			old := e.Schedule(1, 0, 1, 0)
			e.Cancel(old)
			reused := e.Schedule(2, 0, 2, 0) // takes the freed slot
			if reused.slot != old.slot {
				t.Fatalf("slot not reused: old %d, new %d", old.slot, reused.slot)
			}
			if old == reused {
				t.Fatal("reused slot produced an identical Handle")
			}
			if e.Cancel(old) {
				t.Error("Cancel(stale) = true")
			}
			if e.Pending() != 1 {
				t.Errorf("stale Cancel changed Pending to %d", e.Pending())
			}
			return []int32{2}
		}},
		{"stale handle after slot reuse by firing", func(t *testing.T, e *Engine, rec *engRecorder) []int32 {
			old := e.Schedule(1, 0, 1, 0)
			e.Step(rec)
			reused := e.Schedule(2, 0, 2, 0)
			if reused.slot != old.slot {
				t.Fatalf("slot not reused: old %d, new %d", old.slot, reused.slot)
			}
			if e.Cancel(old) {
				t.Error("Cancel(stale) = true")
			}
			return []int32{1, 2}
		}},
		{"generation wraparound", func(t *testing.T, e *Engine, rec *engRecorder) []int32 {
			first := e.Schedule(1, 0, 1, 0)
			e.Cancel(first)
			e.slots[first.slot].gen = inlineEvent - 1 // as if reused 2^31-2 times
			h := e.Schedule(1, 0, 2, 0)
			if !e.Cancel(h) {
				t.Fatal("Cancel at the last generation = false")
			}
			h2 := e.Schedule(1, 0, 3, 0)
			if h2.slot != h.slot || !h2.Valid() {
				t.Fatalf("after wrap: handle %+v, want slot %d and Valid", h2, h.slot)
			}
			if e.Cancel(h) {
				t.Error("Cancel(stale handle from before the wrap) = true")
			}
			return []int32{3}
		}},
		{"out of range handle", func(t *testing.T, e *Engine, rec *engRecorder) []int32 {
			e.Schedule(1, 0, 1, 0)
			for _, h := range []Handle{{slot: 5, gen: 1}, {slot: -1, gen: 1}} {
				if e.Cancel(h) {
					t.Errorf("Cancel(%+v) = true", h)
				}
			}
			return []int32{1}
		}},
		{"every heap position", func(t *testing.T, e *Engine, rec *engRecorder) []int32 {
			// Event i fires at time perm(i), a permutation of 0..n-1, so
			// the heap has several levels in no particular order. Cancel
			// the root, the last entry, leaves and interior entries;
			// survivors must still come out in time order.
			const n = 200
			perm := func(i int) Time { return Time(i * 37 % n) }
			byTime := make([]int32, n)
			hs := make([]Handle, n)
			for i := range n {
				hs[i] = e.Schedule(perm(i), 0, int32(i), 0)
				byTime[perm(i)] = int32(i)
			}
			root, last := int(byTime[0]), int(byTime[n-1])
			for _, i := range []int{root, last, 1, 100, 150, 42, int(byTime[1])} {
				if !e.Cancel(hs[i]) {
					t.Errorf("Cancel(hs[%d]) = false", i)
				}
				byTime[perm(i)] = -1
			}
			return slices.DeleteFunc(byTime, func(a int32) bool { return a < 0 })
		}},
		{"from inside a handler", func(t *testing.T, e *Engine, rec *engRecorder) []int32 {
			e.Schedule(1, 0, 1, 0)
			sameTime := e.Schedule(1, 0, 2, 0)
			later := e.Schedule(5, 0, 3, 0)
			e.Schedule(6, 0, 4, 0)
			rec.on = func(ev Event) {
				if ev.A != 1 {
					return
				}
				if !e.Cancel(sameTime) {
					t.Error("Cancel(same-time event) in handler = false")
				}
				if !e.Cancel(later) {
					t.Error("Cancel(later event) in handler = false")
				}
				if e.Cancel(later) {
					t.Error("second Cancel in handler = true")
				}
			}
			return []int32{1, 4}
		}},
		{"handler cancels its own event", func(t *testing.T, e *Engine, rec *engRecorder) []int32 {
			var self Handle
			self = e.Schedule(1, 0, 1, 0)
			e.Schedule(2, 0, 2, 0)
			rec.on = func(ev Event) {
				if ev.A == 1 && e.Cancel(self) {
					t.Error("Cancel of the event being dispatched = true")
				}
			}
			return []int32{1, 2}
		}},
		{"handler schedules then cancels", func(t *testing.T, e *Engine, rec *engRecorder) []int32 {
			e.Schedule(1, 0, 1, 0)
			rec.on = func(ev Event) {
				if ev.A != 1 {
					return
				}
				timeout := e.After(10, 0, 99, 0)
				e.After(1, 0, 2, 0)
				if !e.Cancel(timeout) {
					t.Error("Cancel(timeout) = false")
				}
			}
			return []int32{1, 2}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := NewEngine()
			rec := &engRecorder{}
			want := tc.run(t, e, rec)
			engRunAll(e, rec)
			if got := engPayloads(rec.got); !slices.Equal(got, want) {
				t.Errorf("dispatched %v, want %v", got, want)
			}
			if e.Pending() != 0 {
				t.Errorf("Pending = %d after running to completion", e.Pending())
			}
		})
	}
}

func TestEngineRunUntil(t *testing.T) {
	tests := []struct {
		name        string
		start       Time // RunUntil(start) first, to move the clock
		at          []Time
		end         Time
		chain       bool // if set, the event with A=0 schedules A=100...
		thenAfter   Time // ...at Now()+thenAfter
		wantA       []int32
		wantNow     Time
		wantPending int
	}{
		{name: "empty engine advances clock", end: 50, wantNow: 50},
		{name: "end before first event", at: []Time{10, 20}, end: 5, wantNow: 5, wantPending: 2},
		{name: "event exactly at end fires", at: []Time{10, 20, 20, 30}, end: 20,
			wantA: []int32{0, 1, 2}, wantNow: 20, wantPending: 1},
		{name: "end just before an event", at: []Time{10, 20}, end: 19,
			wantA: []int32{0}, wantNow: 19, wantPending: 1},
		{name: "end after all events", at: []Time{1, 2, 3}, end: Hour,
			wantA: []int32{0, 1, 2}, wantNow: Hour},
		{name: "end in the past keeps clock", start: 100, at: []Time{150}, end: 40,
			wantNow: 100, wantPending: 1},
		{name: "end equal to now", start: 100, at: []Time{100, 101}, end: 100,
			wantA: []int32{0}, wantNow: 100, wantPending: 1},
		{name: "handler event inside window fires", at: []Time{10}, end: 20,
			chain: true, thenAfter: 10, wantA: []int32{0, 100}, wantNow: 20},
		{name: "handler event at same time fires", at: []Time{20}, end: 20,
			chain: true, thenAfter: 0, wantA: []int32{0, 100}, wantNow: 20},
		{name: "handler event past window waits", at: []Time{10}, end: 20,
			chain: true, thenAfter: 11, wantA: []int32{0}, wantNow: 20, wantPending: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := NewEngine()
			rec := &engRecorder{}
			e.RunUntil(tc.start, rec)
			for i, at := range tc.at {
				e.Schedule(at, 0, int32(i), 0)
			}
			rec.on = func(ev Event) {
				if tc.chain && ev.A == 0 {
					e.After(tc.thenAfter, 0, 100, 0)
				}
			}
			e.RunUntil(tc.end, rec)
			if got := engPayloads(rec.got); !slices.Equal(got, tc.wantA) {
				t.Errorf("dispatched %v, want %v", got, tc.wantA)
			}
			if e.Now() != tc.wantNow {
				t.Errorf("Now = %v, want %v", e.Now(), tc.wantNow)
			}
			if e.Pending() != tc.wantPending {
				t.Errorf("Pending = %d, want %d", e.Pending(), tc.wantPending)
			}
			for _, ev := range rec.got {
				if ev.At > tc.end {
					t.Errorf("dispatched %+v after end %v", ev, tc.end)
				}
			}
		})
	}
}

func TestEngineCounts(t *testing.T) {
	e := NewEngine()
	rec := &engRecorder{}
	check := func(step string, pending int, processed uint64) {
		t.Helper()
		if e.Pending() != pending || e.Processed() != processed {
			t.Errorf("%s: Pending, Processed = %d, %d; want %d, %d",
				step, e.Pending(), e.Processed(), pending, processed)
		}
	}
	check("new", 0, 0)
	if _, ok := e.PeekTime(); ok {
		t.Error("PeekTime on empty engine reports an event")
	}
	if e.Step(rec) {
		t.Error("Step on empty engine = true")
	}
	check("empty step", 0, 0)

	h1 := e.Schedule(30, 0, 1, 0)
	e.Schedule(10, 0, 2, 0)
	h3 := e.Schedule(20, 0, 3, 0)
	check("scheduled 3", 3, 0)
	if at, ok := e.PeekTime(); !ok || at != 10 {
		t.Errorf("PeekTime = %v, %v; want 10, true", at, ok)
	}
	e.Cancel(h3)
	check("cancelled 1", 2, 0)
	e.Cancel(h3)
	check("cancelled again", 2, 0)
	e.Step(rec)
	check("stepped 1", 1, 1)
	if e.Now() != 10 {
		t.Errorf("Now = %v, want 10", e.Now())
	}
	if at, ok := e.PeekTime(); !ok || at != 30 {
		t.Errorf("PeekTime = %v, %v; want 30, true", at, ok)
	}
	e.Step(rec)
	check("stepped 2", 0, 2)
	if e.Cancel(h1) {
		t.Error("Cancel(fired) = true")
	}
	check("cancel fired", 0, 2)
	e.RunUntil(100, rec)
	check("RunUntil on empty", 0, 2)
}

func TestEngineSchedulePastPanics(t *testing.T) {
	tests := []struct {
		name      string
		call      func(e *Engine)
		wantPanic bool
	}{
		{"Schedule before now", func(e *Engine) { e.Schedule(99, 0, 0, 0) }, true},
		{"Schedule far in the past", func(e *Engine) { e.Schedule(-Hour, 0, 0, 0) }, true},
		{"After negative", func(e *Engine) { e.After(-1, 0, 0, 0) }, true},
		{"Schedule at now", func(e *Engine) { e.Schedule(100, 0, 0, 0) }, false},
		{"After zero", func(e *Engine) { e.After(0, 0, 0, 0) }, false},
		{"Schedule later", func(e *Engine) { e.Schedule(101, 0, 0, 0) }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := NewEngine()
			e.RunUntil(100, &engRecorder{})
			panicked := func() (p bool) {
				defer func() { p = recover() != nil }()
				tc.call(e)
				return false
			}()
			if panicked != tc.wantPanic {
				t.Fatalf("panicked = %v, want %v", panicked, tc.wantPanic)
			}
			want := 0
			if !tc.wantPanic {
				want = 1
			}
			if e.Pending() != want {
				t.Errorf("Pending = %d, want %d", e.Pending(), want)
			}
		})
	}
}

// engModelEvent is one pending event in engModel.
type engModelEvent struct {
	at   Time
	seq  uint64
	kind EventKind
	a, b int32
	h    Handle
}

// engModel is a brute-force reference for Engine: an unordered list
// searched linearly for the minimum (at, seq).
type engModel struct {
	pending []engModelEvent
	seq     uint64
}

func (m *engModel) schedule(at Time, kind EventKind, a, b int32, h Handle) {
	m.pending = append(m.pending, engModelEvent{at, m.seq, kind, a, b, h})
	m.seq++
}

func (m *engModel) cancel(h Handle) bool {
	for i, ev := range m.pending {
		if ev.h == h {
			m.pending = slices.Delete(m.pending, i, i+1)
			return true
		}
	}
	return false
}

func (m *engModel) minIndex() int {
	best := -1
	for i, ev := range m.pending {
		if best < 0 || ev.at < m.pending[best].at ||
			(ev.at == m.pending[best].at && ev.seq < m.pending[best].seq) {
			best = i
		}
	}
	return best
}

func (m *engModel) pop() (engModelEvent, bool) {
	i := m.minIndex()
	if i < 0 {
		return engModelEvent{}, false
	}
	ev := m.pending[i]
	m.pending = slices.Delete(m.pending, i, i+1)
	return ev, true
}

// engRandomDriver mixes random Schedule and Cancel calls, from outside and
// inside handlers, and checks every dispatch against engModel.
type engRandomDriver struct {
	t       *testing.T
	r       *rand.Rand
	e       *Engine
	m       *engModel
	handles []Handle // recent handles, live and stale
	nextA   int32
	steps   int
	// delay, if set, draws how far ahead of now an event is scheduled,
	// instead of the default mix; maxPending caps the events pending (400
	// if 0).
	delay      func(r *rand.Rand, now Time) Time
	maxPending int
}

func (d *engRandomDriver) randomOps(max int) {
	for range d.r.IntN(max + 1) {
		switch op := d.r.IntN(10); {
		case op < 5 && len(d.m.pending) < cmp.Or(d.maxPending, 400):
			// Small delays make equal times common.
			at := d.e.Now() + Time(d.r.IntN(20))
			if d.r.IntN(8) == 0 { // far ahead: many radix buckets in use
				at = d.e.Now() + Time(d.r.Int64N(1<<32))
			}
			if d.delay != nil {
				at = d.e.Now() + d.delay(d.r, d.e.Now())
			}
			kind, b := EventKind(d.r.IntN(4)), int32(d.r.IntN(1000))
			if d.r.IntN(3) == 0 { // posted: no Handle, payload in the entry
				d.e.post(at, kind, d.nextA)
				d.m.schedule(at, kind, d.nextA, 0, Handle{})
				d.nextA++
				continue
			}
			h := d.e.Schedule(at, kind, d.nextA, b)
			d.m.schedule(at, kind, d.nextA, b, h)
			d.nextA++
			if len(d.handles) < 256 {
				d.handles = append(d.handles, h)
			} else {
				d.handles[d.r.IntN(len(d.handles))] = h
			}
		case op < 9 && len(d.handles) > 0:
			h := d.handles[d.r.IntN(len(d.handles))]
			if got, want := d.e.Cancel(h), d.m.cancel(h); got != want {
				d.t.Fatalf("step %d: Cancel(%+v) = %v, model says %v", d.steps, h, got, want)
			}
		case op == 9:
			if d.e.Cancel(Handle{}) {
				d.t.Fatal("Cancel(zero) = true")
			}
		}
	}
}

func (d *engRandomDriver) check() {
	if d.e.Pending() != len(d.m.pending) {
		d.t.Fatalf("step %d: Pending = %d, model has %d", d.steps, d.e.Pending(), len(d.m.pending))
	}
	at, ok := d.e.PeekTime()
	if i := d.m.minIndex(); ok != (i >= 0) || (ok && at != d.m.pending[i].at) {
		d.t.Fatalf("step %d: PeekTime = %v, %v; model disagrees", d.steps, at, ok)
	}
}

func (d *engRandomDriver) Handle(ev Event) {
	want, ok := d.m.pop()
	if !ok {
		d.t.Fatalf("step %d: dispatched %+v, model is empty", d.steps, ev)
	}
	wantEv := Event{At: want.at, Kind: want.kind, A: want.a, B: want.b}
	if ev != wantEv {
		d.t.Fatalf("step %d: dispatched %+v, want %+v", d.steps, ev, wantEv)
	}
	if d.e.Now() != ev.At {
		d.t.Fatalf("step %d: Now = %v during dispatch of %+v", d.steps, d.e.Now(), ev)
	}
	d.randomOps(3)
	d.check()
}

func TestEngineRandomAgainstModel(t *testing.T) {
	tests := []struct {
		name  string
		seed  uint64
		steps int
		start Time // the clock at the start (large: high bits set)
	}{
		{"seed 1", 1, 20000, 0},
		{"seed 2", 2, 20000, 0},
		{"seed 3", 3, 20000, 0},
		{"late start", 4, 20000, 1<<40 + 12345},
		{"across bit 62", 6, 20000, 1<<62 - 1<<16},
		{"near the end of time", 5, 5000, math.MaxInt64 - 1<<50},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := NewEngine()
			e.RunUntil(tc.start, nil)
			d := &engRandomDriver{
				t: t, r: rand.New(rand.NewPCG(tc.seed, 7)), e: e, m: &engModel{},
			}
			for d.steps = 0; d.steps < tc.steps; d.steps++ {
				d.randomOps(4)
				d.check()
				if !e.Step(d) && len(d.m.pending) != 0 {
					t.Fatalf("step %d: Step = false with %d pending in model", d.steps, len(d.m.pending))
				}
			}
			if e.Processed() == 0 {
				t.Fatal("nothing was dispatched")
			}
			// Drain and check the tail too.
			for e.Step(d) {
			}
			d.check()
		})
	}
}

// TestEngineWorldLikeAgainstModel drives the engine as the world loads it
// — hundreds of events pending, most seconds ahead, some at times shared by
// many (a tick, a batch), some for now — and with few distinct times, with
// cancels, and checks every dispatch against engModel: large buckets are
// refiled under their lower bounds level after level, and the clock
// crosses powers of two.
func TestEngineWorldLikeAgainstModel(t *testing.T) {
	worldLike := func(r *rand.Rand, now Time) Time {
		switch r.IntN(10) {
		case 0:
			return 0
		case 1:
			return Time(r.IntN(1000))
		case 2: // a time many events share: the next whole 2^20 µs or one after it
			return (now>>20+1+Time(r.IntN(3)))<<20 - now
		case 3: // far ahead
			return Time(r.Int64N(1 << 34))
		default: // seconds: 2^21 to 2^26 µs
			return Time(r.Int64N(1<<(21+r.IntN(6)))) + 1<<20
		}
	}
	clustered := func(r *rand.Rand, now Time) Time {
		if r.IntN(2) == 0 {
			return Time(r.IntN(4)) << uint(20+r.IntN(4))
		}
		return Time(r.IntN(8)) << uint(r.IntN(24))
	}
	// sparse: few events, half of them over a minute ahead, so the engine often
	// holds only far ones, PeekTime refills with them, and events then
	// scheduled for sooner come before them all (rebase, when Cancel has
	// emptied the front).
	const sparseSpan = 64 * Second
	sparse := func(r *rand.Rand, now Time) Time {
		switch r.IntN(4) {
		case 0:
			return Time(r.IntN(20))
		case 1:
			return Time(r.Int64N(int64(sparseSpan)))
		default:
			return sparseSpan + Time(r.Int64N(int64(2*sparseSpan)))
		}
	}
	tests := []struct {
		name       string
		seed       uint64
		steps      int
		start      Time
		maxPending int
		delay      func(r *rand.Rand, now Time) Time
	}{
		{"world-like", 11, 60000, 0, 1500, worldLike},
		{"world-like late start", 12, 40000, 1<<40 - 3*Second, 1500, worldLike},
		{"clustered", 13, 40000, 0, 800, clustered},
		{"clustered near the end of time", 14, 20000, math.MaxInt64 - 1<<40, 800, clustered},
		{"world-like across bit 62", 15, 40000, 1<<62 - 1<<22, 1500, worldLike},
		{"sparse", 16, 40000, 0, 6, sparse},
		{"sparse near the end of time", 17, 20000, math.MaxInt64 - 1<<40, 6, sparse},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := NewEngine()
			e.RunUntil(tc.start, nil)
			d := &engRandomDriver{
				t: t, r: rand.New(rand.NewPCG(tc.seed, 7)), e: e, m: &engModel{},
				delay: tc.delay, maxPending: tc.maxPending,
			}
			for d.steps = 0; d.steps < tc.steps; d.steps++ {
				d.randomOps(6)
				d.check()
				if !e.Step(d) && len(d.m.pending) != 0 {
					t.Fatalf("step %d: Step = false with %d pending in model", d.steps, len(d.m.pending))
				}
			}
			for e.Step(d) {
			}
			d.check()
		})
	}
}

// engHoldAllocHandler is a steady-state workload: every event schedules
// a successor and a timeout, and cancels the previous timeout.
type engHoldAllocHandler struct {
	e       *Engine
	r       *rand.Rand
	timeout Handle
}

func (h *engHoldAllocHandler) Handle(ev Event) {
	h.e.Cancel(h.timeout)
	h.e.After(Time(h.r.Int64N(int64(Second))), 1, ev.A, ev.B+1)
	h.timeout = h.e.After(Minute, 2, ev.A, 0)
}

func TestEngineZeroAllocsPerEvent(t *testing.T) {
	e := NewEngine()
	h := &engHoldAllocHandler{e: e, r: rand.New(rand.NewPCG(1, 2))}
	for i := range 1000 {
		e.Schedule(Time(h.r.Int64N(int64(Second))), 1, int32(i), 0)
	}
	// Warm up so the buckets, slab and free list reach their steady sizes
	// (cancelled timeouts stay queued until their minute is up).
	for range 2000000 {
		e.Step(h)
	}
	const eventsPerRun = 1000
	allocs := testing.AllocsPerRun(50, func() {
		for range eventsPerRun {
			e.Step(h)
		}
	})
	if perEvent := allocs / eventsPerRun; perEvent != 0 {
		t.Errorf("%v allocations per event in steady state, want 0", perEvent)
	}
}

func TestEngineTimeUnits(t *testing.T) {
	if Millisecond != 1000 || Second != 1e6 || Minute != 60e6 || Hour != 3600e6 {
		t.Fatalf("unit constants wrong: %d %d %d %d", Millisecond, Second, Minute, Hour)
	}
	t.Run("FromDuration", func(t *testing.T) {
		tests := []struct {
			d    time.Duration
			want Time
		}{
			{0, 0},
			{time.Microsecond, 1},
			{1499 * time.Nanosecond, 1},
			{1500 * time.Nanosecond, 2},
			{499 * time.Nanosecond, 0},
			{-1500 * time.Nanosecond, -2},
			{-1499 * time.Nanosecond, -1},
			{90 * time.Second, 90 * Second},
			{time.Hour, Hour},
		}
		for _, tc := range tests {
			if got := FromDuration(tc.d); got != tc.want {
				t.Errorf("FromDuration(%v) = %d, want %d", tc.d, got, tc.want)
			}
		}
	})
	t.Run("FromSeconds", func(t *testing.T) {
		tests := []struct {
			s    float64
			want Time
		}{
			{0, 0},
			{1, Second},
			{1.5, 1500 * Millisecond},
			{0.0000014, 1},
			{0.0000016, 2},
			{-0.0000016, -2},
			{3600, Hour},
			{1e-9, 0},
		}
		for _, tc := range tests {
			if got := FromSeconds(tc.s); got != tc.want {
				t.Errorf("FromSeconds(%v) = %d, want %d", tc.s, got, tc.want)
			}
		}
	})
	t.Run("conversions", func(t *testing.T) {
		tests := []struct {
			t       Time
			seconds float64
			dur     time.Duration
			str     string
		}{
			{0, 0, 0, "0s"},
			{1, 1e-6, time.Microsecond, "1µs"},
			{1500 * Millisecond, 1.5, 1500 * time.Millisecond, "1.5s"},
			{90*Second + 500*Millisecond, 90.5, 90500 * time.Millisecond, "1m30.5s"},
			{-2 * Hour, -7200, -2 * time.Hour, "-2h0m0s"},
		}
		for _, tc := range tests {
			if got := tc.t.Seconds(); got != tc.seconds {
				t.Errorf("Time(%d).Seconds() = %v, want %v", tc.t, got, tc.seconds)
			}
			if got := tc.t.Duration(); got != tc.dur {
				t.Errorf("Time(%d).Duration() = %v, want %v", tc.t, got, tc.dur)
			}
			if got := tc.t.String(); got != tc.str {
				t.Errorf("Time(%d).String() = %q, want %q", tc.t, got, tc.str)
			}
			if got := FromDuration(tc.t.Duration()); got != tc.t {
				t.Errorf("FromDuration(Time(%d).Duration()) = %d", tc.t, got)
			}
			if got := FromSeconds(tc.t.Seconds()); got != tc.t {
				t.Errorf("FromSeconds(Time(%d).Seconds()) = %d", tc.t, got)
			}
		}
	})
}

// TestEngineFrontAfterPeek: events scheduled after PeekTime has sorted a
// small bucket into the front, before, between and at the times there, fire
// in (At, sequence) order; so do events scheduled earlier than the time
// PeekTime found once Cancel has emptied the front (rebase).
func TestEngineFrontAfterPeek(t *testing.T) {
	e := NewEngine()
	for i, at := range []Time{100, 105, 100} {
		e.Schedule(at, 1, int32(i), 0)
	}
	if at, ok := e.PeekTime(); !ok || at != 100 {
		t.Fatalf("PeekTime = %v, %v; want 100", at, ok)
	}
	for i, at := range []Time{50, 100, 103, 105, 200} {
		e.Schedule(at, 1, int32(3+i), 0)
	}
	r := &engRecorder{}
	for e.Step(r) {
	}
	var got []int32
	for _, ev := range r.got {
		got = append(got, ev.A)
	}
	if want := []int32{3, 0, 2, 4, 5, 1, 6, 7}; !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}

	e = NewEngine()
	h := e.Schedule(100, 1, 0, 0)
	e.PeekTime()
	e.Cancel(h)
	if _, ok := e.PeekTime(); ok {
		t.Fatal("PeekTime found a cancelled event")
	}
	e.Schedule(70, 1, 1, 0)
	e.Schedule(50, 1, 2, 0)
	e.Schedule(50, 1, 3, 0)
	r = &engRecorder{}
	for e.Step(r) {
	}
	got = got[:0]
	for _, ev := range r.got {
		got = append(got, ev.A)
	}
	if want := []int32{2, 3, 1}; !slices.Equal(got, want) {
		t.Errorf("after rebase: order %v, want %v", got, want)
	}
}

// TestEngineFrontInsertionOrder drives the front's insertion paths the way
// the world does — events posted from handlers, many for now (taking the
// spent slot before head), many a little later (shifted in from either
// side), some far ahead (filed, then refilled and sorted) — with popBefore,
// PeekTime and popPeeked as World.run calls them, and checks the dispatch order
// against every event sorted by time, then scheduling sequence. Every
// event is scheduled no earlier than now, so the whole dispatch order is
// that sort.
func TestEngineFrontInsertionOrder(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		r := rand.New(rand.NewPCG(seed, 99))
		e := NewEngine()
		type key struct {
			at  Time
			seq int32
		}
		var all []key
		post := func(at Time) {
			seq := int32(len(all))
			all = append(all, key{at, seq})
			if r.IntN(4) == 0 {
				e.Schedule(at, 1, seq, 0)
			} else {
				e.post(at, 1, seq)
			}
		}
		delay := func() Time {
			switch r.IntN(6) {
			case 0, 1:
				return 0
			case 2:
				return Time(r.IntN(4))
			case 3:
				return Time(r.IntN(200))
			case 4:
				return Time(r.IntN(100000))
			default:
				return Time(r.Int64N(1 << 36))
			}
		}
		for range 30 {
			post(delay())
		}
		var got []int32
		for len(all) < 40000 {
			// popBefore, as World.run calls it first, with an end and a
			// stop that sometimes refuse the next event.
			end := e.Now() + Time(r.IntN(300))
			stop := e.Processed() + uint64(r.IntN(3))
			now, pending, processed := e.Now(), e.Pending(), e.Processed()
			b0 := e.buckets[0]
			ready := e.head < len(b0) && b0[e.head].gen&inlineEvent != 0 // a posted event next, in place
			if ev, ok := e.popBefore(end, stop); ok {
				if ev.At > end || processed >= stop || e.Processed() != processed+1 || e.Now() != ev.At {
					t.Fatalf("seed %d: popBefore(%v, %d) took %+v at processed %d", seed, end, stop, ev, processed)
				}
				got = append(got, ev.A)
			} else {
				if e.Now() != now || e.Pending() != pending || e.Processed() != processed {
					t.Fatalf("seed %d: popBefore refused but changed the engine", seed)
				}
				at, ok := e.PeekTime()
				if !ok {
					break
				}
				if ready && at <= end && processed < stop {
					t.Fatalf("seed %d: popBefore(%v, %d) refused a posted event at %v at the front", seed, end, stop, at)
				}
				ev := e.popPeeked()
				if ev.At != at || e.Now() != at {
					t.Fatalf("seed %d: PeekTime %v, popped %+v, Now %v", seed, at, ev, e.Now())
				}
				got = append(got, ev.A)
			}
			for range r.IntN(3) + int(r.IntN(2)) {
				post(e.Now() + delay())
			}
		}
		for {
			at, ok := e.PeekTime()
			if !ok {
				break
			}
			ev := e.popPeeked()
			if ev.At != at {
				t.Fatalf("seed %d: PeekTime %v, popped %+v", seed, at, ev)
			}
			got = append(got, ev.A)
		}
		slices.SortFunc(all, func(a, b key) int {
			if a.at != b.at {
				return cmp.Compare(a.at, b.at)
			}
			return cmp.Compare(a.seq, b.seq)
		})
		want := make([]int32, len(all))
		for i, k := range all {
			want[i] = k.seq
		}
		if !slices.Equal(got, want) {
			for i := range min(len(got), len(want)) {
				if got[i] != want[i] {
					t.Fatalf("seed %d: dispatch %d is event %d, want %d (%d events, %d dispatched)", seed, i, got[i], want[i], len(want), len(got))
				}
			}
			t.Fatalf("seed %d: %d events dispatched, want %d", seed, len(got), len(want))
		}
	}
}

// TestRunStop: World.run takes events by Engine.popBefore while processed
// is below runStop, so runStop must be the first count at or after
// processed at which one of run's budget checks is due: processed at
// maxEvents, or a memory read (processed a multiple of memoryCheckMask+1).
func TestRunStop(t *testing.T) {
	const period = memoryCheckMask + 1
	due := func(p, maxEvents uint64, memory bool) bool {
		return p >= maxEvents || (memory && p&memoryCheckMask == 0)
	}
	var counts []uint64
	for _, base := range []uint64{0, period, 5 * period, 1 << 40} {
		for _, d := range []uint64{0, 1, 2, period / 2, period - 2, period - 1} {
			counts = append(counts, base+d)
		}
	}
	for _, maxEvents := range []uint64{1, 2, 500, period - 1, period, period + 1, 3*period + 7, 1<<40 + 3, math.MaxUint64} {
		for _, memory := range []bool{false, true} {
			for _, p := range counts {
				if p > maxEvents {
					continue // run has stopped by then
				}
				want := p
				for !due(want, maxEvents, memory) {
					want++
					if memory && want-p > period || !memory && want-p > 2*period {
						want = maxEvents // far: the events budget
						break
					}
				}
				if got := runStop(p, maxEvents, memory); got != want {
					t.Errorf("runStop(%d, %d, %v) = %d, want %d", p, maxEvents, memory, got, want)
				}
			}
		}
	}
}
