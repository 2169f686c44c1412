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
	lag  Time // how overdue expireLate lets the oldest entry get: span / 128
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
	// byModel and bySrc tally the tries (every entry but history) the
	// rolling windows hold: a try of a model (an evaluation call's,
	// newTry) by its model, any other by its source; a window's sum of
	// evaluation calls is both (quotaWindow.srcSum). They are kept once
	// for all the rolling windows, not per window, and read as a window's
	// share (quotaWindow.share). Every amount is whole, so a window's
	// part of a tally is exactly the sum it would keep of its own, in any
	// order. They hold the entries from the rolling windows' cursor up to
	// tallied; the rest are added when a reading needs them (tally):
	// readings are rare beside tries, and an entry that ages out before
	// one is never added nor taken out.
	bySrc   [numSources]quotaTally
	byModel []quotaTally
	tallied int64
}

const (
	logPageBits = 12 // 4,096 entries (64 KiB) a page
	logPage     = 1 << logPageBits
)

// noneDue is a log's due with nothing to expire.
const noneDue Time = math.MaxInt64

// newQuotaLog is an empty log of windows of span, of a catalogue of models.
func newQuotaLog(span Time, models int) *quotaLog {
	return &quotaLog{span: span, lag: span / 128, due: noneDue, byModel: make([]quotaTally, models)}
}

// add makes q one of the log's windows.
func (l *quotaLog) add(q *quotaWindow) {
	l.windows = append(l.windows, q)
	l.kinds |= q.kinds
	if !q.fixed {
		l.rolling = append(l.rolling, q)
		q.share = shareOf(q.counts)
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

// expireLate is expire once the oldest entry is a lag overdue: for an
// admission that may read sums above the exact ones (quotaPool.admitPlain),
// one walk then takes out a lag's worth of entries, not one or two.
func (l *quotaLog) expireLate(now Time) {
	if now-l.lag >= l.due {
		l.expireDue(now)
	}
}

//go:noinline
func (l *quotaLog) expireDue(now Time) {
	for _, q := range l.resets {
		q.reset(now) // trims the log itself
	}
	if len(l.rolling) == 0 {
		return
	}
	// The walk stops at the first entry younger than a span, whose time
	// is then the next due. (A log without fixed windows is here only
	// when its oldest entry has expired.) A tallied try leaves the log's
	// tallies once for all the rolling windows, and each window's sum (and
	// wait cursor) loses its share of what left after the walk; a history
	// entry leaves each window that holds it.
	start, span := l.rolling[0].next, l.span
	due, next := noneDue, start
	var goneReq, goneTok, goneOut int64 // what leaves, as a quotaTally: apart, kept in registers
	// The tallied entries first, then the rest (l.tallied).
	for end := l.tallied; next < end; {
		es := l.run(next, end)
		i := 0
		for ; i < len(es); i++ {
			e := &es[i]
			if e.t+span > now {
				due = e.t + span
				break
			}
			a := int64(e.amt)
			switch e.kind {
			case entryTry:
				goneReq, goneTok = goneReq+1, goneTok+a
				s := l.tallyOf(e)
				s.req, s.tok = s.req-1, s.tok-a
				continue
			case entryBurn:
				goneReq++
			case entryOut:
				goneOut += int64(e.amt)
			default:
				l.expireHistory(e, next+int64(i))
				continue
			}
			l.tallyOf(e).minus(e.kind, a)
		}
		next += int64(i)
		if i < len(es) {
			break
		}
	}
	for end := l.tail; due == noneDue && next < end; {
		es := l.run(next, end)
		i := 0
		for ; i < len(es); i++ {
			e := &es[i]
			if e.t+span > now {
				due = e.t + span
				break
			}
			switch e.kind {
			case entryTry:
				goneReq, goneTok = goneReq+1, goneTok+int64(e.amt)
			case entryBurn:
				goneReq++
			case entryOut:
				goneOut += int64(e.amt)
			default:
				l.expireHistory(e, next+int64(i))
			}
		}
		next += int64(i)
		l.tallied = max(l.tallied, next)
	}
	if next == start {
		return
	}
	gone := quotaTally{goneReq, goneTok, goneOut}
	for _, q := range l.rolling {
		a := gone.of(q.share)
		q.sum -= a
		q.next = next
		if q.wc < next {
			q.wc, q.wf = next, 0
		} else {
			q.wf -= a // every entry that left was before wc
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

// tally brings the log's tallies up to its last entry, for a reading.
func (l *quotaLog) tally() {
	for next, end := l.tallied, l.tail; next < end; {
		es := l.run(next, end)
		for i := range es {
			e := &es[i]
			if e.kind >= entryHistRequests {
				continue // not tallied
			}
			l.tallyOf(e).plus(e.kind, int64(e.amt))
		}
		next += int64(len(es))
	}
	l.tallied = l.tail
}

// expireHistory takes history entry e (at index i) out of the rolling
// windows that hold it.
func (l *quotaLog) expireHistory(e *quotaEntry, i int64) {
	a := l.hist[e.amt]
	for _, q := range l.rolling {
		if !q.holds(e.kind) {
			continue
		}
		q.sum -= a
		q.bySrc[e.src] -= a
		if i < q.wc {
			q.wf -= a
		}
	}
}

// run is the log's entries from index next on, within next's page and
// before end: a walk over the log takes its entries a run at a time.
func (l *quotaLog) run(next, end int64) []quotaEntry {
	es := l.pages[next>>logPageBits-l.pageBase][next&(logPage-1):]
	if n := end - next; n < int64(len(es)) {
		es = es[:n]
	}
	return es
}

// tallyOf is the tally try entry e counts in: its model's (an evaluation
// call's), else its source's.
func (l *quotaLog) tallyOf(e *quotaEntry) *quotaTally {
	if e.model >= 0 {
		return &l.byModel[e.model]
	}
	return &l.bySrc[e.src]
}

func (l *quotaLog) end() int64 { return l.tail }

// len is the number of entries the log keeps.
func (l *quotaLog) len() int { return int(l.tail - l.head) }

func (l *quotaLog) at(i int64) *quotaEntry {
	return &l.pages[i>>logPageBits-l.pageBase][i&(logPage-1)]
}

// push appends an entry if some window of the log counts its kind. A try
// (any entry but history) is counted in each window's sum, and in a fixed
// window's readings (the rolling windows' are tallied when read, tally).
func (l *quotaLog) push(e quotaEntry) {
	kind := e.kind
	if l.kinds>>kind&1 == 0 {
		return
	}
	if kind >= entryHistRequests {
		l.countHistory(&e)
	} else {
		v := tallyOf(kind, e.amt)
		for _, q := range l.windows {
			if q.share == shareNone {
				q.count(&e)
				continue
			}
			if !q.holds(kind) {
				continue // it counts 0 of e
			}
			a := v.of(q.share)
			if b := q.bucket; b != nil {
				b.advance(e.t)
				b.take(a)
			}
			q.sum += a
		}
	}
	if l.due == noneDue { // the rolling windows held nothing: e frees first
		l.due = e.t + l.span
	}
	k := l.tail>>logPageBits - l.pageBase
	if k == int64(len(l.pages)) {
		l.grow()
	}
	l.pages[k][l.tail&(logPage-1)] = e
	l.tail++
}

// record is push for a try or a burn in a plain pool's log (quotaPool.plain:
// its windows are rolling, without a bucket, and count requests or tokens),
// less the windows' sums, which the pool counts: the entry's place in the
// log (its readings are tallied when read, tally).
func (l *quotaLog) record(e *quotaEntry) {
	if l.due == noneDue {
		l.due = e.t + l.span
	}
	k := l.tail>>logPageBits - l.pageBase
	if k == int64(len(l.pages)) {
		l.grow()
	}
	l.pages[k][l.tail&(logPage-1)] = *e
	l.tail++
}

// put is record's common case, without a call: e goes in the tail's page,
// which is the last, if the tail is not at a page's start and the log
// already holds an entry (it is due). It reports whether it did.
func (l *quotaLog) put(e *quotaEntry) bool {
	i := l.tail & (logPage - 1)
	if i == 0 || l.due == noneDue {
		return false
	}
	l.pages[len(l.pages)-1][i] = *e
	l.tail++
	return true
}

// grow adds a page for the entries from tail on (once in logPage entries:
// not inlined, so that record's callers keep their values in registers).
//
//go:noinline
func (l *quotaLog) grow() {
	page := l.spare
	if page == nil {
		page = new([logPage]quotaEntry)
	}
	l.spare = nil
	l.pages = append(l.pages, page)
}

// countHistory counts history entry e in the windows that hold it.
func (l *quotaLog) countHistory(e *quotaEntry) {
	for _, q := range l.windows {
		q.count(e)
	}
}

// count counts e in the window's own sums, if it holds e's kind (a fixed
// window's entries, a rolling window's history), and takes it from its
// bucket.
func (q *quotaWindow) count(e *quotaEntry) {
	if !q.holds(e.kind) {
		return
	}
	a := q.of(e)
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
