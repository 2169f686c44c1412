package sim

import (
	"testing"

	"github.com/evalsched/lab/policies"
)

// TestJobIndex: IDs set in sequence are found until removed, and a page goes
// once all its IDs have come and gone, not before.
func TestJobIndex(t *testing.T) {
	var x jobIndex
	const n = 3<<jobIndexBits + 5
	for id := policies.JobID(0); id < n; id++ {
		x.set(id, int32(id%7))
	}
	for _, id := range []policies.JobID{-1, n, n + 1<<jobIndexBits} {
		if _, ok := x.get(id); ok {
			t.Errorf("get(%d) found a job never set", id)
		}
	}
	for id := policies.JobID(0); id < n; id++ {
		if s, ok := x.get(id); !ok || s != int32(id%7) {
			t.Fatalf("get(%d) = %d, %v; want %d", id, s, ok, id%7)
		}
	}
	for id := policies.JobID(0); id < 1<<jobIndexBits; id++ {
		x.remove(id, n)
	}
	if x.pages[0].slots != nil || x.pages[1].slots == nil {
		t.Errorf("page 0 kept or page 1 dropped after emptying page 0")
	}
	// The last page is not full yet: emptying it keeps it for the IDs to come.
	for id := policies.JobID(3 << jobIndexBits); id < n; id++ {
		x.remove(id, n)
	}
	if x.pages[3].slots == nil {
		t.Errorf("the page still to be filled was dropped")
	}
	seen := 0
	x.each(func(id policies.JobID, slot int32) {
		if id < 1<<jobIndexBits || id >= 3<<jobIndexBits || slot != int32(id%7) {
			t.Errorf("each: unexpected job %d in slot %d", id, slot)
		}
		seen++
	})
	if seen != 2<<jobIndexBits {
		t.Errorf("each saw %d jobs, want %d", seen, 2<<jobIndexBits)
	}
}
