package sim

import (
	"fmt"
	"testing"
	"unsafe"

	"github.com/evalsched/lab/internal/cacheline"
	"github.com/evalsched/lab/scenario"
)

// Records that every event touches at random are laid out by cache line:
// a whole number of lines, tables that start on one, and the fields a step
// reads together in one line. The tests below keep it so; each layout's
// measured gain is in CHANGELOG.md.

const cacheLine = 64

// field is a field's place in its record.
type field struct {
	name      string
	off, size uintptr
}

// wholeLines fails unless a record of size bytes is a whole number of lines.
func wholeLines(t *testing.T, record string, size uintptr) {
	t.Helper()
	if size%cacheLine != 0 {
		t.Errorf("%s is %d bytes, not a multiple of %d: pad it", record, size, cacheLine)
	}
}

// inLine fails for each field that is not within line n of its record.
func inLine(t *testing.T, record string, n uintptr, fields ...field) {
	t.Helper()
	for _, f := range fields {
		if f.off/cacheLine != n || (f.off+f.size-1)/cacheLine != n {
			t.Errorf("%s.%s (bytes %d-%d) is not within line %d", record, f.name, f.off, f.off+f.size, n)
		}
	}
}

// startsLine fails unless p is at the start of a cache line.
func startsLine(t *testing.T, what string, p unsafe.Pointer) {
	t.Helper()
	if off := uintptr(p) % cacheLine; off != 0 {
		t.Errorf("%s starts %d bytes into a cache line", what, off)
	}
}

// TestJobRecordsStartCacheLines: a running job's record is a whole number
// of lines and the running table's records start on one; what every call
// of a running job touches (its time split, model and lane) is in its
// first line.
func TestJobRecordsStartCacheLines(t *testing.T) {
	var j jobState
	wholeLines(t, "jobState", unsafe.Sizeof(j))
	inLine(t, "jobState", 0,
		field{"phase", unsafe.Offsetof(j.phase), unsafe.Sizeof(j.phase)},
		field{"pending", unsafe.Offsetof(j.pending), unsafe.Sizeof(j.pending)},
		field{"service", unsafe.Offsetof(j.service), unsafe.Sizeof(j.service)},
		field{"mark", unsafe.Offsetof(j.mark), unsafe.Sizeof(j.mark)},
		field{"tool", unsafe.Offsetof(j.tool), unsafe.Sizeof(j.tool)},
		field{"model", unsafe.Offsetof(j.model), unsafe.Sizeof(j.model)},
		field{"lane", unsafe.Offsetof(j.lane), unsafe.Sizeof(j.lane)},
	)
	w, err := Execute(labMMcScenario(t), RunSpec{Policy: "fixed-lane", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	startsLine(t, "the running table's first records", unsafe.Pointer(&w.running.first[0]))
	for _, p := range w.running.pages {
		startsLine(t, "a running page", unsafe.Pointer(&p[0]))
	}
	if len(w.running.pages) == 0 {
		t.Log("no running page was made: only the first records were checked")
	}
}

// TestGatewayLanesStartCacheLines: a lane is a whole number of lines that
// the allocator places on a line however many models there are; what a
// decision reads of it (the queue's length, the calls in backoff, the
// signal window's clock and rejections) sits in its first line, and the
// rest of what a call touches (in-flight count, limit, the open window's
// other counts) within its second.
func TestGatewayLanesStartCacheLines(t *testing.T) {
	var l gatewayLane
	wholeLines(t, "gatewayLane", unsafe.Sizeof(l))
	sig, open := unsafe.Offsetof(l.sig), unsafe.Offsetof(l.sig)+unsafe.Offsetof(l.sig.open)
	inLine(t, "gatewayLane", 0,
		field{"queue", unsafe.Offsetof(l.queue), unsafe.Sizeof(l.queue)},
		field{"backoff", unsafe.Offsetof(l.backoff), unsafe.Sizeof(l.backoff)},
		field{"sig.at", sig + unsafe.Offsetof(l.sig.at), unsafe.Sizeof(l.sig.at)},
		field{"sig.open.rejected", open + unsafe.Offsetof(l.sig.open.rejected), unsafe.Sizeof(l.sig.open.rejected)},
	)
	inLine(t, "gatewayLane", 1,
		field{"sig.open.tries", open + unsafe.Offsetof(l.sig.open.tries), unsafe.Sizeof(l.sig.open.tries)},
		field{"sig.open.latSum", open + unsafe.Offsetof(l.sig.open.latSum), unsafe.Sizeof(l.sig.open.latSum)},
		field{"sig.open.latN", open + unsafe.Offsetof(l.sig.open.latN), unsafe.Sizeof(l.sig.open.latN)},
		field{"inflight", unsafe.Offsetof(l.inflight), unsafe.Sizeof(l.inflight)},
		field{"limit", unsafe.Offsetof(l.limit), unsafe.Sizeof(l.limit)},
	)
	for n := 1; n <= 64; n++ {
		g := newGateway(&scenario.GatewayConfig{}, make([]scenario.ModelConfig, n), 1)
		startsLine(t, fmt.Sprintf("the lanes of %d models", n), unsafe.Pointer(&g.lanes[0]))
	}
}

// TestDeploymentsStartCacheLines: a deployment is a whole number of lines
// that the allocator places on a line however many models there are, and
// each group of fields a call reads together sits in one line.
func TestDeploymentsStartCacheLines(t *testing.T) {
	var d deployment
	wholeLines(t, "deployment", unsafe.Sizeof(d))
	for _, g := range [][]field{
		{
			{"inflight", unsafe.Offsetof(d.inflight), unsafe.Sizeof(d.inflight)},
			{"busy", unsafe.Offsetof(d.busy), unsafe.Sizeof(d.busy)},
			{"streams", unsafe.Offsetof(d.streams), unsafe.Sizeof(d.streams)},
			{"waiting", unsafe.Offsetof(d.waiting), unsafe.Sizeof(d.waiting)},
		},
		{
			{"latFactor", unsafe.Offsetof(d.latFactor), unsafe.Sizeof(d.latFactor)},
			{"ttft", unsafe.Offsetof(d.ttft), unsafe.Sizeof(d.ttft)},
			{"decodeRate", unsafe.Offsetof(d.decodeRate), unsafe.Sizeof(d.decodeRate)},
			{"streamsF", unsafe.Offsetof(d.streamsF), unsafe.Sizeof(d.streamsF)},
			{"slows", unsafe.Offsetof(d.slows), unsafe.Sizeof(d.slows)},
			{"paces", unsafe.Offsetof(d.paces), unsafe.Sizeof(d.paces)},
		},
		{
			{"jit", unsafe.Offsetof(d.jit), unsafe.Sizeof(d.jit)},
			{"org", unsafe.Offsetof(d.org), unsafe.Sizeof(d.org)},
			{"key", unsafe.Offsetof(d.key), unsafe.Sizeof(d.key)},
		},
	} {
		inLine(t, "deployment", g[0].off/cacheLine, g...)
	}
	for n := 1; n <= 64; n++ {
		p := newProvider(&scenario.Scenario{}, make([]scenario.ModelConfig, n))
		startsLine(t, fmt.Sprintf("the deployments of %d models", n), unsafe.Pointer(&p.models[0]))
	}
}

// TestLaneMetersStartCacheLines: a model's meter is a whole number of
// lines that the recorder places on a line however many models there are,
// and each group of fields a call (or the sample) touches together sits in
// one line.
func TestLaneMetersStartCacheLines(t *testing.T) {
	var m laneMeter
	wholeLines(t, "laneMeter", unsafe.Sizeof(m))
	for _, g := range [][]field{
		{
			{"depth", unsafe.Offsetof(m.depth), unsafe.Sizeof(m.depth)},
			{"busy", unsafe.Offsetof(m.busy), unsafe.Sizeof(m.busy)},
			{"queueEntries", unsafe.Offsetof(m.queueEntries), unsafe.Sizeof(m.queueEntries)},
			{"calls", unsafe.Offsetof(m.calls), unsafe.Sizeof(m.calls)},
		},
		{
			{"gwOnly", unsafe.Offsetof(m.gwOnly), unsafe.Sizeof(m.gwOnly)},
			{"queueWaitSum", unsafe.Offsetof(m.queueWaitSum), unsafe.Sizeof(m.queueWaitSum)},
			{"tokens", unsafe.Offsetof(m.tokens), unsafe.Sizeof(m.tokens)},
			{"cacheInSince", unsafe.Offsetof(m.cacheInSince), unsafe.Sizeof(m.cacheInSince)},
			{"cacheReadSince", unsafe.Offsetof(m.cacheReadSince), unsafe.Sizeof(m.cacheReadSince)},
			{"missToolSince", unsafe.Offsetof(m.missToolSince), unsafe.Sizeof(m.missToolSince)},
		},
		{
			{"countedSince", unsafe.Offsetof(m.countedSince), unsafe.Sizeof(m.countedSince)},
			{"realSince", unsafe.Offsetof(m.realSince), unsafe.Sizeof(m.realSince)},
			{"rejectedSinceSample", unsafe.Offsetof(m.rejectedSinceSample), unsafe.Sizeof(m.rejectedSinceSample)},
			{"running", unsafe.Offsetof(m.running), unsafe.Sizeof(m.running)},
			{"arrived", unsafe.Offsetof(m.arrived), unsafe.Sizeof(m.arrived)},
			{"started", unsafe.Offsetof(m.started), unsafe.Sizeof(m.started)},
			{"grading", unsafe.Offsetof(m.grading), unsafe.Sizeof(m.grading)},
		},
	} {
		inLine(t, "laneMeter", g[0].off/cacheLine, g...)
	}
	for n := 1; n <= 64; n++ {
		startsLine(t, fmt.Sprintf("the meters of %d models", n), unsafe.Pointer(&cacheline.Slice[laneMeter](n)[0]))
	}
}
