package sim

import "testing"

// TestSlots: slots are handed out densely, freed slots come back first and
// zeroed, records keep their address as the table grows past its first
// page and past later ones.
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
	for _, c := range []struct{ release, want int32 }{
		{7, 7}, {slotFirst - 1, slotFirst - 1}, {slotFirst, slotFirst}, {4096, 4096},
	} {
		s.release(c.release)
		if got := s.take(); got != c.want || s.at(got)[0] != 0 {
			t.Errorf("got slot %d holding %d, want the last released (%d), zeroed", got, s.at(got)[0], c.want)
		}
	}
	if got := s.take(); int(got) != n {
		t.Errorf("got slot %d, want a new one, %d", got, n)
	}
}

// TestSlotsCover: a table kept beside another's slots covers each slot
// it is given, up to the highest, whatever their order, and keeps what it
// holds as it grows.
func TestSlotsCover(t *testing.T) {
	var s slots[int64]
	for _, slot := range []int32{0, 3, slotFirst - 1, slotFirst, 1, 4095, 4096, 2 * 4096, 100} {
		s.cover(slot)
		*s.at(slot) = int64(slot) + 1
		if s.n <= slot {
			t.Fatalf("cover(%d): high-water mark %d", slot, s.n)
		}
	}
	for _, slot := range []int32{0, 3, slotFirst - 1, slotFirst, 1, 4095, 4096, 2 * 4096, 100} {
		if got := *s.at(slot); got != int64(slot)+1 {
			t.Errorf("slot %d holds %d, want %d", slot, got, slot+1)
		}
	}
	if s.n != 2*4096+1 || len(s.free) != 0 {
		t.Errorf("high-water mark %d, %d free; want %d, none", s.n, len(s.free), 2*4096+1)
	}
}

// TestPages: records come back in the order added, whatever the number of
// pages they fill, through len, each and all, and all leaves the list
// able to take more.
func TestPages(t *testing.T) {
	for _, n := range []int{0, 1, 255, 256, 257, 8192, 20_000} {
		var ps pages[int32]
		for i := range n {
			ps.add(int32(i))
		}
		if got := ps.len(); got != n {
			t.Errorf("%d added: len %d", n, got)
		}
		var each []int32
		ps.each(func(p []int32) { each = append(each, p...) })
		all := ps.all()
		for name, got := range map[string][]int32{"each": each, "all": all} {
			if len(got) != n {
				t.Fatalf("%d added: %s gives %d", n, name, len(got))
			}
			for i, v := range got {
				if v != int32(i) {
					t.Fatalf("%d added: %s[%d] = %d", n, name, i, v)
				}
			}
		}
		if n == 0 && all != nil {
			t.Errorf("nothing added: all is %v, want nil", all)
		}
		ps.add(-1)
		if got := ps.all(); len(got) != n+1 || got[n] != -1 || ps.len() != n+1 {
			t.Errorf("%d added, joined, then one more: %d records, last %d", n, len(got), got[len(got)-1])
		}
	}
}
