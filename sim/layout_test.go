package sim

import (
	"testing"
	"unsafe"
)

// TestJobRecordsStartCacheLines: a running job's record is a whole number
// of cache lines and the running table's records start on one, so the
// fields every event of a running job touches (jobState's first) share the
// fewest lines, whatever the slot. Measured on studio-week's first 2 h
// (cachegrind): 4.2% fewer first-level data-cache misses than at 240 bytes.
func TestJobRecordsStartCacheLines(t *testing.T) {
	const line = 64
	if size := unsafe.Sizeof(jobState{}); size%line != 0 {
		t.Errorf("jobState is %d bytes, not a multiple of %d: pad it", size, line)
	}
	w, err := Execute(labMMcScenario(t), RunSpec{Policy: "fixed-lane", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if off := uintptr(unsafe.Pointer(&w.running.first[0])) % line; off != 0 {
		t.Errorf("the running table's first records start %d bytes into a cache line", off)
	}
	for i, p := range w.running.pages {
		if off := uintptr(unsafe.Pointer(&p[0])) % line; off != 0 {
			t.Errorf("running page %d starts %d bytes into a cache line", i, off)
		}
	}
	if len(w.running.pages) == 0 {
		t.Log("no running page was made: only the first records were checked")
	}
}
