package sim

import "testing"

// TestSlots: slots are handed out densely, freed slots come back first and
// zeroed, records keep their address as the table grows past a page.
func TestSlots(t *testing.T) {
	var s slots[[2]int64]
	n := 3<<slotPageBits + 5
	ptrs := make([]*[2]int64, n)
	for i := range n {
		slot := s.take()
		if int(slot) != i {
			t.Fatalf("take %d returned slot %d", i, slot)
		}
		ptrs[i] = s.at(slot)
		ptrs[i][0] = int64(i)
	}
	for i := range n {
		if s.at(int32(i)) != ptrs[i] || ptrs[i][0] != int64(i) {
			t.Fatalf("slot %d moved or lost its record", i)
		}
	}
	s.release(7)
	s.release(4096)
	if got := s.take(); got != 4096 || s.at(got)[0] != 0 {
		t.Errorf("got slot %d holding %d, want the last released (4096), zeroed", got, s.at(got)[0])
	}
	if got := s.take(); got != 7 {
		t.Errorf("got slot %d, want 7", got)
	}
	if got := s.take(); int(got) != n {
		t.Errorf("got slot %d, want a new one, %d", got, n)
	}
}
