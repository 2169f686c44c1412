package sim

import (
	"testing"
	"unsafe"

	"github.com/evalsched/lab/scenario"
)

// TestDeploymentsStartCacheLines: a deployment is a whole number of cache
// lines that the allocator places on a line however many models there are,
// and each group of fields a call reads together sits in one line.
func TestDeploymentsStartCacheLines(t *testing.T) {
	const line = 64
	if size := unsafe.Sizeof(deployment{}); size%line != 0 {
		t.Errorf("deployment is %d bytes, not a multiple of %d: pad it", size, line)
	}
	var d deployment
	groups := [][]struct {
		name      string
		off, size uintptr
	}{
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
	}
	for _, g := range groups {
		first := g[0].off / line
		for _, f := range g {
			if f.off/line != first || (f.off+f.size-1)/line != first {
				t.Errorf("%s (bytes %d-%d) is not in line %d with %s", f.name, f.off, f.off+f.size, first, g[0].name)
			}
		}
	}
	for n := 1; n <= 64; n++ {
		p := newProvider(&scenario.Scenario{}, make([]scenario.ModelConfig, n))
		if off := uintptr(unsafe.Pointer(&p.models[0])) % line; off != 0 {
			t.Errorf("%d deployments start %d bytes into a cache line", n, off)
		}
	}
}
