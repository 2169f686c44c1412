package sim

import (
	"testing"
	"unsafe"

	"github.com/evalsched/lab/scenario"
)

// TestGatewayLanesStartCacheLines: a lane is a whole number of cache lines
// that the allocator places on a line however many models there are; what
// a decision reads of it (the queue's length, the calls in backoff, the
// signal window's clock and rejections) sits in its first line, and the
// rest of what a call touches (in-flight count, limit, the open window's
// other counts) within its second.
func TestGatewayLanesStartCacheLines(t *testing.T) {
	const line = 64
	if size := unsafe.Sizeof(gatewayLane{}); size%line != 0 {
		t.Errorf("gatewayLane is %d bytes, not a multiple of %d: pad it", size, line)
	}
	var l gatewayLane
	sig, open := unsafe.Offsetof(l.sig), unsafe.Offsetof(l.sig)+unsafe.Offsetof(l.sig.open)
	for _, f := range []struct {
		name          string
		off, size, in uintptr // in: the line the field must be in
	}{
		{"queue", unsafe.Offsetof(l.queue), unsafe.Sizeof(l.queue), 0},
		{"backoff", unsafe.Offsetof(l.backoff), unsafe.Sizeof(l.backoff), 0},
		{"sig.at", sig + unsafe.Offsetof(l.sig.at), unsafe.Sizeof(l.sig.at), 0},
		{"sig.open.rejected", open + unsafe.Offsetof(l.sig.open.rejected), unsafe.Sizeof(l.sig.open.rejected), 0},
		{"sig.open.tries", open + unsafe.Offsetof(l.sig.open.tries), unsafe.Sizeof(l.sig.open.tries), 1},
		{"sig.open.latSum", open + unsafe.Offsetof(l.sig.open.latSum), unsafe.Sizeof(l.sig.open.latSum), 1},
		{"sig.open.latN", open + unsafe.Offsetof(l.sig.open.latN), unsafe.Sizeof(l.sig.open.latN), 1},
		{"inflight", unsafe.Offsetof(l.inflight), unsafe.Sizeof(l.inflight), 1},
		{"limit", unsafe.Offsetof(l.limit), unsafe.Sizeof(l.limit), 1},
	} {
		if f.off/line != f.in || (f.off+f.size-1)/line != f.in {
			t.Errorf("%s (bytes %d-%d of the lane) is not within line %d", f.name, f.off, f.off+f.size, f.in)
		}
	}
	for n := 1; n <= 64; n++ {
		g := newGateway(&scenario.GatewayConfig{}, make([]scenario.ModelConfig, n), 1)
		if off := uintptr(unsafe.Pointer(&g.lanes[0])) % line; off != 0 {
			t.Errorf("%d lanes start %d bytes into a cache line", n, off)
		}
	}
}
