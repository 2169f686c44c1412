package sim

// slots is a table of records addressed by a stable int32 slot, in pages
// of a fixed size: a slot freed is reused first, and the table grows a page
// at a time. Unlike one slice grown by append it never copies its records
// and never holds twice their size while growing, so a run with millions of
// jobs waiting (a backlogged baseline over a week) costs their size, not
// double it. Pointers from at stay valid until the slot is released.
type slots[T any] struct {
	// The first slotFirst slots are in first, inside the table: most
	// tables stay there (a queue's jobs in flight), which then costs no
	// page, and at reads it without the list or a pointer. The others are
	// in pages of slotPage records (pages[0] leaves its first slotFirst
	// unused): a slot's index in its page is masked to the page's size,
	// so at checks only the page number's bound. A table is not copied
	// once it holds records (its first ones would not follow).
	first [slotFirst]T
	pages [](*[slotPage]T)
	n     int32 // slots handed out so far (the high-water mark)
	free  []int32
}

const (
	slotFirst    = 256
	slotPageBits = 12 // 4,096 records a page after the first
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
	s.n++
	// Pages made as slices of T, not new([slotPage]T): the runtime then
	// reads T's pointer mask rather than building one for the array.
	if slot >= slotFirst && int(slot>>slotPageBits) == len(s.pages) {
		s.pages = append(s.pages, (*[slotPage]T)(make([]T, slotPage)))
	}
	return slot
}

// cover makes slot addressable with at, as if every slot up to it had
// been taken: a table kept beside another's slots, keyed by them, grows
// with it so.
func (s *slots[T]) cover(slot int32) {
	if slot >= s.n {
		s.grow(slot)
	}
}

// grow takes the slots past the high-water mark up to slot, as take does
// (written out: take stays small enough to inline).
func (s *slots[T]) grow(slot int32) {
	for ; s.n <= slot; s.n++ {
		if k := s.n; k >= slotFirst && int(k>>slotPageBits) == len(s.pages) {
			s.pages = append(s.pages, (*[slotPage]T)(make([]T, slotPage)))
		}
	}
}

// release zeroes a slot (dropping what it references) and frees it for reuse.
func (s *slots[T]) release(slot int32) { s.releaseAt(slot, s.at(slot)) }

// releaseAt is release for a caller that holds the slot's record, rec
// (s.at(slot)), and so need not look it up again.
func (s *slots[T]) releaseAt(slot int32, rec *T) {
	var zero T
	*rec = zero
	s.free = append(s.free, slot)
}

// at is the record in a slot.
func (s *slots[T]) at(slot int32) *T {
	if uint32(slot) < slotFirst {
		return &s.first[slot]
	}
	return &s.pages[uint32(slot)>>slotPageBits][slot&(slotPage-1)]
}

// pages is an append-only list kept in pages, so that growing it never
// copies what it holds: cur is the page being filled, p the full ones
// before it. all joins them (once: the pages are replaced by the joined one).
type pages[T any] struct {
	p   [][]T
	cur []T
}

func (ps *pages[T]) add(v T) {
	n := len(ps.cur)
	if n == cap(ps.cur) {
		ps.grow()
		n = 0
	}
	ps.cur = ps.cur[:n+1]
	ps.cur[n] = v
}

// next adds a zero record and returns it, to be filled in place.
func (ps *pages[T]) next() *T {
	n := len(ps.cur)
	if n == cap(ps.cur) {
		ps.grow()
		n = 0
	}
	ps.cur = ps.cur[:n+1]
	return &ps.cur[n]
}

// grow closes the page being filled (if any) and opens the next, twice its
// size up to 8,192 records.
func (ps *pages[T]) grow() {
	size := 256
	if c := cap(ps.cur); c > 0 {
		ps.p = append(ps.p, ps.cur)
		size = min(2*c, 8192)
	}
	ps.cur = make([]T, 0, size)
}

// len is the number of records added.
func (ps *pages[T]) len() int {
	n := len(ps.cur)
	for _, p := range ps.p {
		n += len(p)
	}
	return n
}

// each calls f with each page's records in order.
func (ps *pages[T]) each(f func([]T)) {
	for _, p := range ps.p {
		f(p)
	}
	if len(ps.cur) > 0 {
		f(ps.cur)
	}
}

// appendTo appends the records to out, in order.
func (ps *pages[T]) appendTo(out []T) []T {
	for _, p := range ps.p {
		out = append(out, p...)
	}
	return append(out, ps.cur...)
}

func (ps *pages[T]) all() []T {
	switch {
	case len(ps.p) == 0 && len(ps.cur) == 0:
		return nil
	case len(ps.p) == 0:
		return ps.cur
	}
	out := ps.appendTo(make([]T, 0, ps.len()))
	ps.p, ps.cur = nil, out
	return out
}
