package sim

import (
	"testing"
	"unsafe"

	"github.com/evalsched/lab/scenario"
)

// TestGatewayLanesStartCacheLines: a lane is a whole number of cache lines
// that the allocator places on a line however many models there are, and
// what a call's answer and a decision touch (the queue, in-flight count,
// limit, calls in backoff, the signal window's clock and open window) sits
// in its first two.
func TestGatewayLanesStartCacheLines(t *testing.T) {
	const line = 64
	if size := unsafe.Sizeof(gatewayLane{}); size%line != 0 {
		t.Errorf("gatewayLane is %d bytes, not a multiple of %d: pad it", size, line)
	}
	var l gatewayLane
	hot := []struct {
		name     string
		off, end uintptr
	}{
		{"queue", unsafe.Offsetof(l.queue), unsafe.Offsetof(l.queue) + unsafe.Sizeof(l.queue)},
		{"inflight", unsafe.Offsetof(l.inflight), unsafe.Offsetof(l.inflight) + unsafe.Sizeof(l.inflight)},
		{"limit", unsafe.Offsetof(l.limit), unsafe.Offsetof(l.limit) + unsafe.Sizeof(l.limit)},
		{"backoff", unsafe.Offsetof(l.backoff), unsafe.Offsetof(l.backoff) + unsafe.Sizeof(l.backoff)},
	}
	for _, f := range hot {
		if f.end > line {
			t.Errorf("%s ends %d bytes into the lane, past its first line", f.name, f.end)
		}
	}
	sig := unsafe.Offsetof(l.sig)
	if sig != line {
		t.Errorf("the signals start %d bytes into the lane, want %d", sig, line)
	}
	if end := sig + unsafe.Offsetof(l.sig.open) + unsafe.Sizeof(l.sig.open); end > 2*line {
		t.Errorf("the open signal window ends %d bytes into the lane, past its second line", end)
	}
	for n := 1; n <= 64; n++ {
		g := newGateway(&scenario.GatewayConfig{}, make([]scenario.ModelConfig, n), 1)
		if off := uintptr(unsafe.Pointer(&g.lanes[0])) % line; off != 0 {
			t.Errorf("%d lanes start %d bytes into a cache line", n, off)
		}
	}
}
