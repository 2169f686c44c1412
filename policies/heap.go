package policies

// The queue of a lane: indices into Scheduler.recs, oldest job first. Jobs
// mostly join a lane in order of arrival, so while they do the queue is a
// sorted run, h[head:]: a job joins at the end and the oldest leaves by
// moving head, without comparisons. A job that joins out of order, or
// leaves from inside the run (re-tiered), turns the queue into a binary
// heap with the oldest at h[0] (the run, moved to the front, is one
// already) until it empties. Each record keeps its position in h (hpos),
// so a job leaves in O(log n) when it is re-tiered as well as when it
// starts.

// size is the number of jobs in the lane.
func (l *lane) size() int { return len(l.h) - int(l.head) }

// oldest is the lane's oldest job; the lane must not be empty.
func (l *lane) oldest() int32 { return l.h[l.head] }

// push adds a job record to the lane.
func (s *Scheduler) push(l *lane, ri int32) {
	n := len(l.h)
	switch {
	case l.heap:
	case n > int(l.head) && s.older(ri, l.h[n-1]):
		s.toHeap(l)
	default:
		if n == cap(l.h) && 2*int(l.head) >= n { // the room the started jobs left
			s.compact(l)
			n = len(l.h)
		}
		l.h = append(l.h, ri)
		s.recs[ri].hpos = int32(n)
		return
	}
	s.heapPush(l, ri)
}

// remove takes a job record out of the lane.
func (s *Scheduler) remove(l *lane, ri int32) {
	if !l.heap {
		if s.recs[ri].hpos == l.head {
			l.head++
			if int(l.head) == len(l.h) {
				l.h, l.head = l.h[:0], 0
			}
			return
		}
		s.toHeap(l)
	}
	s.heapRemove(l, int(s.recs[ri].hpos))
	if len(l.h) == 0 {
		l.heap = false
	}
}

// toHeap turns the lane's sorted run into a heap.
func (s *Scheduler) toHeap(l *lane) {
	s.compact(l)
	l.heap = true
}

// compact moves the lane's sorted run to the front of h.
func (s *Scheduler) compact(l *lane) {
	if l.head == 0 {
		return
	}
	l.h = l.h[:copy(l.h, l.h[l.head:])]
	l.head = 0
	for i, ri := range l.h {
		s.recs[ri].hpos = int32(i)
	}
}

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
