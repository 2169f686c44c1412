package sim

import "math/bits"

// radixBuckets is one bucket per possible highest differing bit of two
// non-negative times, plus bucket 0 for "equal". Times are never negative
// (the clock starts at zero and Schedule refuses the past), so they differ
// below bit 63.
const radixBuckets = 64

// sortedFrontMax is the most entries refill sorts into the front at once.
const sortedFrontMax = 16

// The rung resolves rungBits bits of a bucket's range at once: rungMax
// rungs, with one bit each in rungWords words (and one bit a word in
// rungSum). Each rung starts with room for rungRoom entries in one shared
// block. Measured on World/scheduler (callgrind instructions, when this
// was written): with room for 4, 4096 rungs 753.4M, 1024 765.8M, 256
// 771.9M; 4096 with room for 16 749.9M, for 8 750.1M (1.7 times the
// allocations). Without the rung, 765.6M. Covering 63/64 of a bucket's
// entries rather than all: 735.4M against 742.0M (World/fixed-lane 279.6M
// against 279.0M; 3/4: 747.2M, 288.6M), and the week's run (studio-week)
// peaks at 334 MB resident, not 688 MB.
const (
	rungBits  = 12
	rungMax   = 1 << rungBits
	rungWords = rungMax / 64
	rungRoom  = 16
	rungKeep  = 256 // the most room a rung keeps from one spread to the next

	// The most entries spread over the rung at once: a larger bucket would
	// crowd its rungs (more than sortedFrontMax each, all sent back to the
	// low buckets), and the spread's writes, scattered over the rungs,
	// would miss the cache. BenchmarkHold/engine, pending=1e5: 109-117
	// ns/event spreading any bucket, 88-89 with this bound (main: 78-99);
	// pending=1e6: 250-285 and 188-247 (main: 193-260), side by side.
	rungSpreadMax = 4 * rungMax

	// The rung covers at least rungCoverNum/rungCoverDen of the entries
	// spread.
	rungCoverNum, rungCoverDen = 63, 64
)

// enqueue files a new entry: into the front if it is due no later than the
// front's last entry, else into its rung or bucket.
func (e *Engine) enqueue(x engineEntry) {
	if b0, h := e.buckets[0], e.head; uint(h) < uint(len(b0)) && x.at <= b0[len(b0)-1].at {
		if h > 0 && x.at < b0[h].at {
			// Earlier than every entry of the front (an event posted for
			// now while later ones wait): into the spent slot before head,
			// nothing to shift.
			b0[h-1] = x
			e.head = h - 1
			return
		}
		e.insertFront(x)
		return
	}
	if d := uint64(x.at - e.rungBase); d < e.ovSpan {
		if d < e.rungSpan {
			if d >= e.lowSpan {
				e.rungFile(d>>(e.rungShift&63), x)
				return
			}
		} else {
			k := e.rungK & 63
			e.buckets[k] = append(e.buckets[k], x)
			e.nonEmpty |= 1 << k
			return
		}
	}
	if x.at < e.last {
		e.rebase(x.at)
	}
	e.file(x)
}

// rungFile appends x to rung i.
func (e *Engine) rungFile(i uint64, x engineEntry) {
	i &= rungMax - 1
	e.rung[i] = append(e.rung[i], x)
	e.rungOcc[i>>6] |= 1 << (i & 63)
	e.rungSum |= 1 << (i >> 6)
}

// front makes buckets[0][head] the next live event, skipping cancelled
// entries and refilling as needed; false if no event is pending.
func (e *Engine) front() bool {
	for {
		b0 := e.buckets[0]
		for e.head < len(b0) {
			x := b0[e.head]
			if x.gen&inlineEvent != 0 || e.slots[x.slot].gen == x.gen {
				return true
			}
			e.head++ // cancelled
		}
		if !e.refill() {
			return false
		}
	}
}

// refill empties the front and fills it from what comes next, or moves
// entries one step towards it; false if nothing is queued. While the rung
// is in use, what comes next is in the buckets below rungK (a rung sent
// back), then in the rung, then in bucket rungK (its overflow) and above.
func (e *Engine) refill() bool {
	e.buckets[0], e.head = e.buckets[0][:0], 0
	for {
		ne := e.nonEmpty &^ 1
		if e.ovSpan != 0 { // a rung: the low buckets, then the rung, come first
			if low := ne & (1<<e.rungK - 1); low != 0 {
				ne = low
			} else if e.rungSum != 0 {
				e.takeRung()
				return true
			} else {
				e.ovSpan = 0 // the rung is spent
				continue
			}
		}
		if ne == 0 {
			return false
		}
		k := bits.TrailingZeros64(ne)
		e.nonEmpty &^= 1 << k
		src := e.buckets[k]
		if len(src) <= sortedFrontMax {
			// The bucket becomes the front, sorted in place; the front's
			// spent storage becomes the bucket's.
			e.buckets[0], e.buckets[k] = src, e.buckets[0]
			for i := 1; i < len(src); i++ { // a stable insertion sort: equal times keep their order
				x := src[i]
				j := i
				for ; j > 0 && src[j-1].at > x.at; j-- {
					src[j] = src[j-1]
				}
				src[j] = x
			}
			e.last = src[0].at
			return true
		}
		if e.ovSpan == 0 && k > 1 && len(src) <= rungSpreadMax {
			e.spread(k)
			continue
		}
		// Refile under the bucket's lower bound: last's bits above k-1,
		// bit k-1 set, the rest clear. It is no later than every entry of
		// the bucket and shares every bit from k up with last, so the
		// higher buckets stay filed as they are, and the entries, which
		// differ from it below bit k-1 only, go to lower buckets.
		e.buckets[k] = src[:0]
		e.last = (e.last>>(k-1) | 1) << (k - 1)
		e.refile(src)
		return true
	}
}

// spread moves bucket k (its bit already cleared) onto the rung, from its
// earliest time on.
func (e *Engine) spread(k int) {
	src := e.buckets[k]
	e.buckets[k] = src[:0]
	lo := src[0].at
	for _, x := range src[1:] {
		lo = min(lo, x.at)
	}
	// The rung reaches far enough for rungCover of the entries: a few far
	// ahead of the rest would make every rung wide and crowded.
	var lens [64]int32 // entries by bits.Len of their distance from lo
	for _, x := range src {
		lens[bits.Len64(uint64(x.at-lo))&63]++
	}
	l, in := 0, int(lens[0])
	for in*rungCoverDen < len(src)*rungCoverNum {
		l++
		in += int(lens[l&63])
	}
	shift := uint(max(l, rungBits) - rungBits) // the rung reaches 1<<l at least
	b := (e.last>>(k-1) | 1) << (k - 1)        // the bucket's range: [b, b+1<<(k-1))
	e.ovSpan = 1<<(k-1) - uint64(lo-b)
	e.rungSpan = min(rungMax<<shift, e.ovSpan)
	e.rungK, e.rungBase, e.rungShift, e.lowSpan, e.last = uint(k), lo, shift, 0, lo
	if e.rung == nil {
		// Every rung starts with room for a few entries in one block: no
		// allocation for each as it fills.
		e.rung = make([][]engineEntry, rungMax)
		e.rungBlock = make([]engineEntry, rungMax*rungRoom)
		for i := range e.rung {
			e.rung[i] = e.rungBlock[i*rungRoom : i*rungRoom : (i+1)*rungRoom]
		}
	} else {
		// The rungs are all empty. One that grew past rungKeep (a burst of
		// events at a few times) goes back to its room in the block: if
		// each kept the most it ever held, a long run would keep room for
		// thousands of bursts (a week's run: 17.5M entries, 280 MB, with
		// 6,000 pending).
		for i, r := range e.rung {
			if cap(r) > rungKeep {
				e.rung[i] = e.rungBlock[i*rungRoom : i*rungRoom : (i+1)*rungRoom]
			}
		}
	}
	over := false
	for _, x := range src {
		if d := uint64(x.at - lo); d < e.rungSpan {
			e.rungFile(d>>(shift&63), x)
		} else { // into the bucket's overflow, in order: src is read ahead of it
			e.buckets[k] = append(e.buckets[k], x)
			over = true
		}
	}
	if over {
		e.nonEmpty |= 1 << k
	}
}

// takeRung empties the first non-empty rung, and those after it while they
// fit, into the front, each sorted; or, if the first holds more than
// sortedFrontMax entries, refiles it into the low buckets.
func (e *Engine) takeRung() {
	w := bits.TrailingZeros64(e.rungSum)
	m := e.rungOcc[w]
	i := w<<6 | bits.TrailingZeros64(m)
	src := e.rung[i]
	if len(src) > sortedFrontMax {
		if m &^= 1 << (i & 63); m == 0 {
			e.rungSum &^= 1 << w
		}
		e.rungOcc[w] = m
		e.rung[i] = src[:0]
		e.lowSpan = uint64(i+1) << e.rungShift
		e.last = e.rungBase + Time(uint64(i)<<e.rungShift)
		e.refile(src)
		return
	}
	front := e.buckets[0]
	for {
		n := len(front)
		for _, x := range src {
			front = append(front, x)
		}
		insertionSort(front[n:])
		e.rung[i] = src[:0]
		m &^= 1 << (i & 63)
		for m == 0 {
			e.rungOcc[w] = 0
			e.rungSum &^= 1 << w
			if e.rungSum == 0 {
				e.buckets[0], e.last = front, front[0].at
				return
			}
			w = bits.TrailingZeros64(e.rungSum)
			m = e.rungOcc[w]
		}
		i = w<<6 | bits.TrailingZeros64(m)
		src = e.rung[i]
		if len(front)+len(src) > sortedFrontMax {
			break
		}
	}
	e.rungOcc[w] = m
	e.buckets[0], e.last = front, front[0].at
}

// insertionSort sorts src by time, stably: equal times keep their order.
func insertionSort(src []engineEntry) {
	for i := 1; i < len(src); i++ {
		x := src[i]
		j := i
		for ; j > 0 && src[j-1].at > x.at; j-- {
			src[j] = src[j-1]
		}
		src[j] = x
	}
}

// refile files every entry of src, each under last.
func (e *Engine) refile(src []engineEntry) {
	last, ne := e.last, e.nonEmpty
	for _, x := range src {
		// Len of 2v+1, less 1, is Len of v, and needs no case for v = 0.
		k := (bits.Len64(uint64(x.at^last)<<1|1) - 1) & 63
		e.buckets[k] = append(e.buckets[k], x)
		ne |= 1 << k
	}
	e.nonEmpty = ne
}

// insertFront puts x into bucket 0 after every live entry at or before its
// time. Bucket 0 is a sorted run from head on (by time, then scheduling
// order), every entry of which is earlier than any in the other buckets; an
// event scheduled no later than its last entry goes into it, in order. When
// an entry has been taken (head > 0) and x belongs in the first half of the
// run, the entries before it move one slot towards head instead of those
// after it one slot back.
func (e *Engine) insertFront(x engineEntry) {
	if h := e.head; h > 0 {
		b0 := e.buckets[0]
		if mid := h + (len(b0)-h)>>1; x.at < b0[mid].at {
			i := h
			for b0[i].at <= x.at {
				b0[i-1] = b0[i]
				i++
			}
			b0[i-1] = x
			e.head = h - 1
			return
		}
	}
	e.sortIn(x)
}

// sortIn appends x to bucket 0 and moves it back past every entry from head
// on that is later: one step of a stable insertion sort.
func (e *Engine) sortIn(x engineEntry) {
	b0 := append(e.buckets[0], x)
	i := len(b0) - 1
	for ; i > e.head && b0[i-1].at > x.at; i-- {
		b0[i] = b0[i-1]
	}
	b0[i] = x
	e.buckets[0] = b0
}

// file appends x to the bucket of its time relative to last.
func (e *Engine) file(x engineEntry) {
	k := (bits.Len64(uint64(x.at^e.last)<<1|1) - 1) & 63 // as in refile
	e.buckets[k] = append(e.buckets[k], x)
	e.nonEmpty |= 1 << k // no branch for bucket 0: refill ignores its bit
}

// rebase refiles every queued entry under a new, earlier last. PeekTime (or
// RunUntil stopping short) may have refilled with events later than now; an
// event then scheduled before them goes into bucket 0, unless Cancel has
// emptied it: then it needs this. The world never cancels, so this is rare.
func (e *Engine) rebase(last Time) {
	var all []engineEntry
	for k := range e.buckets {
		from := 0
		if k == 0 {
			from = e.head
		}
		all = append(all, e.buckets[k][from:]...)
		e.buckets[k] = e.buckets[k][:0]
	}
	for i := range e.rung {
		all = append(all, e.rung[i]...)
		e.rung[i] = e.rung[i][:0]
	}
	e.rungOcc, e.rungSum = [rungWords]uint64{}, 0
	e.ovSpan, e.rungSpan, e.lowSpan, e.rungK = 0, 0, 0, 0
	e.head, e.last, e.nonEmpty = 0, last, 0
	for _, x := range all {
		e.file(x)
	}
}
