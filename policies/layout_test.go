package policies

import (
	"testing"
	"time"
	"unsafe"
)

// TestTickFieldsFirst: what every tick reads and writes of every model
// (modelState's doc) lies in its first two cache lines, which take the
// whole tick of an idle slow-start model, its rings' values being rows of
// the scheduler's tick tables.
func TestTickFieldsFirst(t *testing.T) {
	var m modelState
	ss := unsafe.Offsetof(m.rival) + unsafe.Offsetof(m.rival.ss)
	fields := []struct {
		name      string
		off, size uintptr
	}{
		{"running", unsafe.Offsetof(m.running), unsafe.Sizeof(m.running)},
		{"waiting", unsafe.Offsetof(m.waiting), unsafe.Sizeof(m.waiting)},
		{"limit", unsafe.Offsetof(m.limit), unsafe.Sizeof(m.limit)},
		{"depth", unsafe.Offsetof(m.depth), unsafe.Sizeof(m.depth)},
		{"rejTicks", unsafe.Offsetof(m.rejTicks), unsafe.Sizeof(m.rejTicks)},
		{"action", unsafe.Offsetof(m.action), unsafe.Sizeof(m.action)},
		{"ran", unsafe.Offsetof(m.ran), unsafe.Sizeof(m.ran)},
		{"rival.ss", ss, unsafe.Sizeof(m.rival.ss)},
		{"rival.fl", unsafe.Offsetof(m.rival) + unsafe.Offsetof(m.rival.fl), unsafe.Sizeof(m.rival.fl)},
	}
	const lines = 2 * 64
	for _, f := range fields {
		if end := f.off + f.size; end > lines {
			t.Errorf("%s ends at byte %d of a model's record, past its first %d", f.name, end, lines)
		}
	}
	if size := unsafe.Sizeof(m); size%64 != 0 {
		t.Errorf("modelState is %d bytes, not a whole number of cache lines", size)
	}
}

// TestModelsStartCacheLines: the model records start a cache line, for a
// small catalogue too, so that a record's first two lines are its own.
func TestModelsStartCacheLines(t *testing.T) {
	for _, n := range []int{1, 3, 40, 241} {
		names := make([]string, n)
		for i := range names {
			names[i] = string(rune('a'+i%26)) + string(rune('a'+i/26))
		}
		s, err := NewScheduler(SchedulerConfig{Tick: 10 * time.Second}, names)
		if err != nil {
			t.Fatal(err)
		}
		if off := uintptr(unsafe.Pointer(&s.models[0])) % 64; off != 0 {
			t.Errorf("%d models: the records start %d bytes into a cache line", n, off)
		}
	}
}
