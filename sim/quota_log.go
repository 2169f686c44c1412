package sim

// quotaLog is the entries of one span of a pool, oldest first, shared by
// the pool's windows of that span. Entry i (counted from the first ever
// added) is entries.at(i − base); entries every window has expired are
// dropped. A paged queue: a daily log of millions grows a page at a time,
// without a doubling copy.
type quotaLog struct {
	entries pagedQueue[quotaEntry]
	base    int64
	windows []*quotaWindow
	// rolling are the windows that are not fixed (rolling windows and
	// token buckets, whose entries give the readings): entries leave them
	// at the same instant (one span after they were counted) and they are
	// always expired together (quotaPool.expire), so they share a cursor
	// and expire walks their entries once for all of them.
	rolling []*quotaWindow
	// resets are the windows expire must bring up to now besides the
	// rolling walk (fixed windows and token buckets), built from windows
	// when their count changes (resetsOf), so that a log of rolling
	// windows only does not look at each window on every expire.
	resets   []*quotaWindow
	resetsOf int
	hist     []float64 // the history entries' requests or tokens (whole), by their amt
}

// expire brings every window of the log up to now: the entries older than
// a span leave the rolling windows (one walk, see rolling), a fixed window
// resets when its reset instant has passed, a bucket refills.
func (l *quotaLog) expire(now Time) {
	if l.resetsOf != len(l.windows) {
		l.resets, l.resetsOf = l.resets[:0], len(l.windows)
		for _, q := range l.windows {
			if q.fixed || q.bucket != nil {
				l.resets = append(l.resets, q)
			}
		}
	}
	for _, q := range l.resets {
		if q.fixed {
			q.reset(now) // trims the log itself
		} else {
			q.bucket.advance(now)
		}
	}
	if len(l.rolling) == 0 {
		return
	}
	first := l.rolling[0]
	next, end, span := first.next, l.end(), first.span
	// Most calls expire nothing (the oldest entry is younger than a span):
	// then the rolling windows' cursors stay and there is nothing to trim.
	if next == end || l.at(next).t+span > now {
		return
	}
	for ; next < end; next++ {
		e := l.at(next)
		if e.t+span > now {
			break
		}
		for _, q := range l.rolling {
			if !q.holds(e.kind) {
				continue
			}
			a := q.of(e)
			q.held--
			q.sum -= a
			q.bySrc[e.src] -= a
			if e.model >= 0 {
				q.byModel[e.model] -= a
			}
			if next < q.wc {
				q.wf -= a
			}
		}
	}
	for _, q := range l.rolling {
		q.next = next
		if q.wc < next {
			q.wc, q.wf = next, 0
		}
	}
	// Every amount is whole, so the sums fall back to exactly 0 as the
	// window empties: no reset against float drift is needed.
	l.trim()
}

func (l *quotaLog) end() int64 { return l.base + int64(l.entries.len()) }

func (l *quotaLog) at(i int64) *quotaEntry { return l.entries.at(int(i - l.base)) }

// push appends an entry if some window of the log counts its kind.
func (l *quotaLog) push(e quotaEntry) {
	counted := false
	for _, q := range l.windows {
		if q.holds(e.kind) {
			counted = true
			q.held++
			a := q.of(&e)
			if b := q.bucket; b != nil {
				b.advance(e.t)
				b.take(a)
			}
			q.sum += a
			q.bySrc[e.src] += a
			if e.model >= 0 {
				q.byModel[e.model] += a
			}
		}
	}
	if counted {
		l.entries.push(e)
	}
}

// pushHistory appends a history entry of amt requests or tokens.
func (l *quotaLog) pushHistory(t Time, amt float64, kind entryKind) {
	l.hist = append(l.hist, amt)
	l.push(quotaEntry{t: t, amt: uint32(len(l.hist) - 1), src: srcHistory, model: -1, kind: kind})
}

// trim drops the entries every window has expired.
func (l *quotaLog) trim() {
	low := l.end()
	for _, q := range l.windows {
		low = min(low, q.next)
	}
	for ; l.base < low; l.base++ {
		l.entries.pop()
	}
}
