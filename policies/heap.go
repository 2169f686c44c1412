package policies

// The heap of a lane: indices into Scheduler.recs, oldest job at h[0]. Each
// record keeps its position (hpos), so a job leaves its lane in O(log n)
// when it is re-tiered as well as when it starts.

func (s *Scheduler) heapPush(l *lane, ri int32) {
	l.h = append(l.h, ri)
	s.recs[ri].hpos = int32(len(l.h) - 1)
	s.heapUp(l, len(l.h)-1)
}

func (s *Scheduler) heapRemove(l *lane, i int) {
	n := len(l.h) - 1
	if i != n {
		l.h[i] = l.h[n]
		s.recs[l.h[i]].hpos = int32(i)
	}
	l.h = l.h[:n]
	if i < n {
		if !s.heapDown(l, i) {
			s.heapUp(l, i)
		}
	}
}

func (s *Scheduler) heapUp(l *lane, i int) {
	h := l.h
	for i > 0 {
		parent := (i - 1) / 2
		if !s.older(h[i], h[parent]) {
			break
		}
		s.heapSwap(h, i, parent)
		i = parent
	}
}

// heapSwap swaps two heap entries and keeps their records' positions.
func (s *Scheduler) heapSwap(h []int32, i, j int) {
	h[i], h[j] = h[j], h[i]
	s.recs[h[i]].hpos = int32(i)
	s.recs[h[j]].hpos = int32(j)
}

func (s *Scheduler) heapDown(l *lane, i0 int) bool {
	h := l.h
	n := len(h)
	i := i0
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && s.older(h[r], h[c]) {
			c = r
		}
		if !s.older(h[c], h[i]) {
			break
		}
		s.heapSwap(h, i, c)
		i = c
	}
	return i > i0
}

// older orders jobs by arrival, then job ID, so that ties are deterministic.
func (s *Scheduler) older(a, b int32) bool {
	ra, rb := &s.recs[a], &s.recs[b]
	if ra.sec != rb.sec {
		return ra.sec < rb.sec
	}
	if ra.nsec != rb.nsec {
		return ra.nsec < rb.nsec
	}
	return ra.id < rb.id
}
