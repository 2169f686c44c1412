package sim

// Engine benchmarks against a hand-written reference priority queue.
//
// How to read the ratio:
//
//	go test -bench 'Hold|MMc' -run '^$' -benchtime=1000000x ./sim/
//
// Every sub-benchmark reports ns/event, the wall time per dispatched event
// (for these models one op is one event, so it equals ns/op). Within each
// pair the reference runs first and the engine line that follows it also
// reports x-ref = engine ns/event ÷ reference ns/event from that same
// invocation: 1.0 means the engine costs nothing over a bare heap, 2.0
// means it takes twice as long per event. The reference is the yardstick
// (a minimal binary heap of {at, seq} with no payload, no cancellation
// support and no dispatch), so the ratio is the whole price of the
// engine's features: handler dispatch through an interface, payload
// slots, the index that makes Cancel O(log n), and generation checks. The
// target is x-ref <= 2 at every size. x-ref is omitted when the reference
// sub-benchmark was filtered out, and with -count it is relative to the
// reference's last repetition; on a shared machine, compare ns/event
// across several repetitions (or use benchstat) before believing small
// differences.

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"
)

// engBenchDraws is the length of the precomputed random-increment tables,
// a power of two. It is small enough to stay in cache, so the queues, not
// the random numbers, dominate the memory traffic.
const engBenchDraws = 1 << 14

// engBenchExp returns engBenchDraws exponential draws with the given mean,
// in whole microseconds, from a fixed seed.
func engBenchExp(seed uint64, mean Time) []Time {
	return engBenchExpN(seed, mean, engBenchDraws)
}

func engBenchExpN(seed uint64, mean Time, n int) []Time {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	d := make([]Time, n)
	for i := range d {
		d[i] = Time(r.ExpFloat64() * float64(mean))
	}
	return d
}

// engRefItem is the reference heap element: just the ordering key.
type engRefItem struct {
	at  int64
	seq uint64
}

// engRefHeap is the yardstick: a minimal binary min-heap ordered by
// (at, seq), no interfaces, no payload, no cancellation.
type engRefHeap struct {
	items []engRefItem
	seq   uint64
}

func (q *engRefHeap) push(at int64, tag uint64) {
	x := engRefItem{at: at, seq: q.seq<<1 | tag}
	q.seq++
	h := append(q.items, x)
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) >> 1
		if pe := h[p]; pe.at < x.at || (pe.at == x.at && pe.seq < x.seq) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = x
	q.items = h
}

func (q *engRefHeap) pop() engRefItem {
	h := q.items
	top := h[0]
	n := len(h) - 1
	x := h[n]
	h = h[:n]
	i := 0
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		ce := h[c]
		if c+1 < n {
			if d := h[c+1]; d.at < ce.at || (d.at == ce.at && d.seq < ce.seq) {
				c, ce = c+1, d
			}
		}
		if x.at < ce.at || (x.at == ce.at && x.seq < ce.seq) {
			break
		}
		h[i] = ce
		i = c
	}
	if n > 0 {
		h[i] = x
	}
	q.items = h
	return top
}

// engHoldHandler is the hold model on the engine: every dispatched event
// schedules one more at now + the next precomputed increment.
type engHoldHandler struct {
	e     *Engine
	incr  []Time
	i     int
	stamp Time // sink so the dispatch cannot be optimised away
}

func (h *engHoldHandler) Handle(ev Event) {
	h.stamp = ev.At
	h.e.After(h.incr[h.i&(engBenchDraws-1)], 0, ev.A, 0)
	h.i++
}

func engReportNsPerEvent(b *testing.B, events int) float64 {
	ns := float64(b.Elapsed().Nanoseconds()) / float64(events)
	b.ReportMetric(ns, "ns/event")
	return ns
}

// BenchmarkHold runs the classic hold model: fill the queue with N events
// at exponential times, then each op pops the minimum and schedules a new
// event at now + Exp(mean 1s).
func BenchmarkHold(b *testing.B) {
	sizes := []int{1e3, 1e5, 1e6}
	fill := engBenchExpN(1, Second, sizes[len(sizes)-1])
	incr := engBenchExp(2, Second)
	for _, n := range sizes {
		size := "pending=1e" + strconv.Itoa(len(strconv.Itoa(n))-1)
		var refNs float64
		b.Run("reference/"+size, func(b *testing.B) {
			q := &engRefHeap{items: make([]engRefItem, 0, n+1)}
			for i := range n {
				q.push(int64(fill[i]), 0)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				top := q.pop()
				q.push(top.at+int64(incr[i&(engBenchDraws-1)]), 0)
			}
			refNs = engReportNsPerEvent(b, b.N)
		})
		b.Run("engine/"+size, func(b *testing.B) {
			e := NewEngine()
			for i := range n {
				e.Schedule(fill[i], 0, int32(i), 0)
			}
			h := &engHoldHandler{e: e, incr: incr}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				e.Step(h)
			}
			ns := engReportNsPerEvent(b, b.N)
			if refNs > 0 {
				b.ReportMetric(ns/refNs, "x-ref")
			}
		})
	}
}

// M/M/c parameters for BenchmarkMMc: c servers, unit service rate, load
// rho, so the arrival rate is rho*c per second.
const (
	engMMcServers = 8
	engMMcRho     = 0.9
)

const (
	engKindArrival EventKind = iota + 1
	engKindDeparture
)

// engMMcDraws returns the interarrival and service-time tables for the
// M/M/c benchmark.
func engMMcDraws() (inter, service []Time) {
	lambda := engMMcRho * engMMcServers // per second
	return engBenchExp(3, Time(float64(Second)/lambda)), engBenchExp(4, Second)
}

// engMMc is the M/M/c model state, shared by the engine and reference
// drivers so that both run exactly the same logic.
type engMMc struct {
	servers        int
	inter, service []Time
	ia, is         int
	busy, queued   int
	departures     int
	areaQ          Time // integral of queue length over time, a checksum
	last           Time
}

func (m *engMMc) nextInter() Time {
	d := m.inter[m.ia&(engBenchDraws-1)]
	m.ia++
	return d
}

func (m *engMMc) nextService() Time {
	d := m.service[m.is&(engBenchDraws-1)]
	m.is++
	return d
}

func (m *engMMc) advance(now Time) {
	m.areaQ += Time(m.queued) * (now - m.last)
	m.last = now
}

// engMMcHandler drives engMMc from the engine, switching on Kind.
type engMMcHandler struct {
	e *Engine
	engMMc
}

func (h *engMMcHandler) Handle(ev Event) {
	h.advance(ev.At)
	switch ev.Kind {
	case engKindArrival:
		h.e.After(h.nextInter(), engKindArrival, 0, 0)
		if h.busy < h.servers {
			h.busy++
			h.e.After(h.nextService(), engKindDeparture, 0, 0)
		} else {
			h.queued++
		}
	case engKindDeparture:
		h.departures++
		if h.queued > 0 {
			h.queued--
			h.e.After(h.nextService(), engKindDeparture, 0, 0)
		} else {
			h.busy--
		}
	}
}

// engMMcEngine runs events events of the M/M/c model on the engine.
func engMMcEngine(events int, inter, service []Time) *engMMc {
	e := NewEngine()
	h := &engMMcHandler{e: e, engMMc: engMMc{servers: engMMcServers, inter: inter, service: service}}
	e.Schedule(0, engKindArrival, 0, 0)
	for range events {
		e.Step(h)
	}
	return &h.engMMc
}

// engMMcReference runs events events of the same model on the reference
// heap.
func engMMcReference(events int, inter, service []Time) *engMMc {
	m := &engMMc{servers: engMMcServers, inter: inter, service: service}
	m.runReference(events, math.MaxInt)
	return m
}

// runReference runs the model on the reference heap for at most events
// events, stopping early once customers customers have departed. The event
// kind is carried in the low bit of the sequence number, which leaves the
// (at, seq) order unchanged.
func (m *engMMc) runReference(events, customers int) {
	const arrival, departure = 0, 1
	q := &engRefHeap{items: make([]engRefItem, 0, 16)}
	q.push(0, arrival)
	for i := 0; i < events && m.departures < customers; i++ {
		ev := q.pop()
		now := Time(ev.at)
		m.advance(now)
		if ev.seq&1 == arrival {
			q.push(int64(now+m.nextInter()), arrival)
			if m.busy < m.servers {
				m.busy++
				q.push(int64(now+m.nextService()), departure)
			} else {
				m.queued++
			}
		} else {
			m.departures++
			if m.queued > 0 {
				m.queued--
				q.push(int64(now+m.nextService()), departure)
			} else {
				m.busy--
			}
		}
	}
}

// BenchmarkMMc runs an M/M/c queue (c=8, rho=0.9); one op is one event.
func BenchmarkMMc(b *testing.B) {
	inter, service := engMMcDraws()
	var refNs float64
	b.Run("reference", func(b *testing.B) {
		b.ReportAllocs()
		engMMcReference(b.N, inter, service)
		refNs = engReportNsPerEvent(b, b.N)
	})
	b.Run("engine", func(b *testing.B) {
		b.ReportAllocs()
		engMMcEngine(b.N, inter, service)
		ns := engReportNsPerEvent(b, b.N)
		if refNs > 0 {
			b.ReportMetric(ns/refNs, "x-ref")
		}
	})
}

// TestEngineMMcMatchesReference checks that the two BenchmarkMMc drivers
// simulate the same trajectory, so the benchmark compares like with like.
func TestEngineMMcMatchesReference(t *testing.T) {
	inter, service := engMMcDraws()
	got := engMMcEngine(200000, inter, service)
	want := engMMcReference(200000, inter, service)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("engine M/M/c state %+v, reference %+v", *got, *want)
	}
	if got.departures == 0 || got.areaQ == 0 {
		t.Fatalf("degenerate M/M/c run: %+v", *got)
	}
}
