package sim

// slots is a table of records addressed by a stable int32 slot, in pages
// of a fixed size: a slot freed is reused first, and the table grows a page
// at a time. Unlike one slice grown by append it never copies its records
// and never holds twice their size while growing, so a run with millions of
// jobs waiting (a backlogged baseline over a week) costs their size, not
// double it. Pointers from at stay valid until the slot is released.
type slots[T any] struct {
	// Fixed-size pages: a slot's index in its page is masked to the page's
	// size, so at checks only the page number's bound.
	pages [](*[slotPage]T)
	n     int32 // slots handed out so far (the high-water mark)
	free  []int32
}

const (
	slotPageBits = 12 // 4,096 records a page
	slotPage     = 1 << slotPageBits
)

// take returns a free slot, zeroed (by release, or new).
func (s *slots[T]) take() int32 {
	if k := len(s.free); k > 0 {
		slot := s.free[k-1]
		s.free = s.free[:k-1]
		return slot
	}
	slot := s.n
	if int(slot>>slotPageBits) == len(s.pages) {
		s.pages = append(s.pages, new([slotPage]T))
	}
	s.n++
	return slot
}

// release zeroes a slot (dropping what it references) and frees it for reuse.
func (s *slots[T]) release(slot int32) {
	var zero T
	*s.at(slot) = zero
	s.free = append(s.free, slot)
}

// at is the record in a slot.
func (s *slots[T]) at(slot int32) *T {
	return &s.pages[uint32(slot)>>slotPageBits][slot&(slotPage-1)]
}

// pages is an append-only list kept in pages, so that growing it never
// copies what it holds; all joins them (once: the pages are replaced by the
// joined one).
type pages[T any] struct{ p [][]T }

func (ps *pages[T]) add(v T) {
	n := len(ps.p)
	if n == 0 || len(ps.p[n-1]) == cap(ps.p[n-1]) {
		size := 256
		if n > 0 {
			size = min(2*cap(ps.p[n-1]), 8192)
		}
		ps.p = append(ps.p, make([]T, 0, size))
		n++
	}
	ps.p[n-1] = append(ps.p[n-1], v)
}

func (ps *pages[T]) all() []T {
	switch len(ps.p) {
	case 0:
		return nil
	case 1:
		return ps.p[0]
	}
	n := 0
	for _, p := range ps.p {
		n += len(p)
	}
	out := make([]T, 0, n)
	for _, p := range ps.p {
		out = append(out, p...)
	}
	ps.p = append(ps.p[:0], out)
	return out
}
