package sim

import "math"

// quotaLog is the entries of one span of a pool, oldest first, shared by
// the pool's windows of that span. Entry i (counted from the first ever
// added) is kept while some window has not expired it, i in [head, tail),
// in pages of logPage entries: a daily log of millions grows a page at a
// time, without a doubling copy, and gives a page back as its front
// empties.
type quotaLog struct {
	// due is the earliest time expire has work: the entry at the rolling
	// windows' cursor frees one span after it was counted (math.MaxInt64
	// with no entry held); math.MinInt64 with a fixed window, checked for
	// its reset on every expire.
	due  Time
	span Time // the windows' span
	head int64
	tail int64
	// pages[k] holds entries (pageBase+k)·logPage on; spare is the page
	// last emptied, for the next one needed.
	pages    []*[logPage]quotaEntry
	pageBase int64
	spare    *[logPage]quotaEntry
	windows  []*quotaWindow
	// kinds is the entry kinds some window holds (quotaWindow.kinds).
	kinds uint8
	// rolling are the windows that are not fixed (rolling windows and
	// token buckets, whose entries give the readings): entries leave them
	// at the same instant (one span after they were counted) and they are
	// always expired together (quotaPool.expire), so they share a cursor
	// and expire walks their entries once for all of them.
	rolling []*quotaWindow
	// resets are the fixed windows, which expire resets when their reset
	// instant has passed. (A token bucket refills as it is read, wait.)
	resets []*quotaWindow
	hist   []float64 // the history entries' requests or tokens (whole), by their amt
}

const (
	logPageBits = 12 // 4,096 entries (64 KiB) a page
	logPage     = 1 << logPageBits
)

// noneDue is a log's due with nothing to expire.
const noneDue Time = math.MaxInt64

// newQuotaLog is an empty log of windows of span.
func newQuotaLog(span Time) *quotaLog { return &quotaLog{span: span, due: noneDue} }

// add makes q one of the log's windows.
func (l *quotaLog) add(q *quotaWindow) {
	l.windows = append(l.windows, q)
	l.kinds |= q.kinds
	if !q.fixed {
		l.rolling = append(l.rolling, q)
	}
	if q.fixed {
		l.resets = append(l.resets, q)
		l.due = math.MinInt64
	}
	q.log = l
}

// expire brings every window of the log up to now: the entries older than
// a span leave the rolling windows (one walk, see rolling), a fixed window
// resets when its reset instant has passed. Most calls have nothing to do
// (the oldest entry is younger than a span).
func (l *quotaLog) expire(now Time) {
	if now >= l.due {
		l.expireDue(now)
	}
}

func (l *quotaLog) expireDue(now Time) {
	for _, q := range l.resets {
		q.reset(now) // trims the log itself
	}
	if len(l.rolling) == 0 {
		return
	}
	// The walk stops at the first entry younger than a span, whose time
	// is then the next due. (A log without fixed windows is here only
	// when its oldest entry has expired.)
	start, end, span := l.rolling[0].next, l.tail, l.span
	due, next := noneDue, start
	for ; next < end; next++ {
		e := l.at(next)
		if e.t+span > now {
			due = e.t + span
			break
		}
		kind, amt, src, model := e.kind, e.amt, e.src, e.model
		for _, q := range l.rolling {
			if !q.holds(kind) {
				continue
			}
			a := q.ofKind(kind, amt)
			q.sum -= a
			q.bySrc[src] -= a
			if model >= 0 {
				q.byModel[model] -= a
			}
			if next < q.wc {
				q.wf -= a
			}
		}
	}
	if next == start {
		return
	}
	for _, q := range l.rolling {
		q.next = next
		if q.wc < next {
			q.wc, q.wf = next, 0
		}
	}
	if len(l.resets) == 0 {
		l.due = due
	}
	// Every amount is whole, so the sums fall back to exactly 0 as the
	// window empties: no reset against float drift is needed.
	if len(l.rolling) == len(l.windows) {
		l.dropBefore(next) // no fixed window keeps older entries
	} else {
		l.trim()
	}
}

func (l *quotaLog) end() int64 { return l.tail }

// len is the number of entries the log keeps.
func (l *quotaLog) len() int { return int(l.tail - l.head) }

func (l *quotaLog) at(i int64) *quotaEntry {
	return &l.pages[i>>logPageBits-l.pageBase][i&(logPage-1)]
}

// push appends an entry if some window of the log counts its kind.
func (l *quotaLog) push(e quotaEntry) {
	if l.kinds>>e.kind&1 == 0 {
		return
	}
	kind, amt, src, model := e.kind, e.amt, e.src, e.model
	for _, q := range l.windows {
		if !q.holds(kind) {
			continue
		}
		a := q.ofKind(kind, amt)
		if b := q.bucket; b != nil {
			b.advance(e.t)
			b.take(a)
		}
		q.sum += a
		q.bySrc[src] += a
		if model >= 0 {
			q.byModel[model] += a
		}
	}
	if l.due == noneDue { // the rolling windows held nothing: e frees first
		l.due = e.t + l.span
	}
	k := l.tail>>logPageBits - l.pageBase
	if k == int64(len(l.pages)) {
		page := l.spare
		if page == nil {
			page = new([logPage]quotaEntry)
		}
		l.spare = nil
		l.pages = append(l.pages, page)
	}
	l.pages[k][l.tail&(logPage-1)] = e
	l.tail++
}

// pushHistory appends a history entry of amt requests or tokens.
func (l *quotaLog) pushHistory(t Time, amt float64, kind entryKind) {
	l.hist = append(l.hist, amt)
	l.push(quotaEntry{t: t, amt: uint32(len(l.hist) - 1), src: srcHistory, model: -1, kind: kind})
}

// trim drops the entries every window has expired, giving back the pages
// they emptied.
func (l *quotaLog) trim() {
	low := l.tail
	for _, q := range l.windows {
		low = min(low, q.next)
	}
	l.dropBefore(low)
}

// dropBefore drops the entries before low (if still kept), giving back
// the pages they emptied.
func (l *quotaLog) dropBefore(low int64) {
	l.head = max(l.head, low)
	for l.head>>logPageBits > l.pageBase {
		l.spare, l.pages[0] = l.pages[0], nil
		l.pages = l.pages[1:]
		l.pageBase++
	}
}
