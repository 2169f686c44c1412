package sim

import (
	"math"
	"time"

	"github.com/evalsched/lab/scenario"
)

// neverFits is the wait of a try that can never be let in (larger than a
// window's limit or a key's budget).
const neverFits Time = -1

// source is who a quota entry was counted for.
type source uint8

const (
	srcEval    source = iota // an evaluation job's call
	srcProd                  // a production call
	srcHistory               // usage declared before the run (organisations[].history)
	numSources
)

// quotaWindow is one quota of an organisation (or a gateway virtual key):
// the requests (or tokens) counted in the window may not exceed limit (with
// underLimit: a try is let in while the count is below limit, and counted
// whole).
// Rolling (the default): an entry frees its share exactly span after it was
// counted — it never refills early, which is how a daily quota stays
// exhausted for hours. Fixed: every entry is dropped at each reset instant
// (a time of day), and a try that does not fit waits for the next reset.
//
// The entries live in the pool's log of the window's span (quotaLog), which
// the windows of that span share: a try is one entry for RPM and TPM, one
// for RPD and TPD, not one per window (a rolling daily window over a busy
// day holds millions). Each window reads the entries it counts (holds)
// through its own cursor, so it does exactly what a window with entries of
// its own would: the same sums, in the same order, expired at the same
// moments.
type quotaWindow struct {
	// The fields every try reads or writes first.
	sum   float64
	limit float64
	// bucket, if set, is the quota's meter (a token bucket): it admits,
	// and the window's entries only give the readings (use by source and
	// by model over the last span).
	bucket *tokenBucket
	// underLimit: admission while below the limit, whatever the try's size
	// (AdmitUnderLimit); else the try must fit (AdmitFit).
	underLimit bool
	// kinds has bit 1<<k set for each entry kind k the window holds, and
	// one says a try counts 1 (a requests window), from counts (holds, of).
	kinds  uint8
	one    bool
	fixed  bool
	counts scenario.DimCounts // requests, tokens (input and output), input or output
	// share is what a rolling window counts of its log's tallies (of the
	// tries, by source and by model: quotaLog.bySrc, byModel), which are
	// then the rest of its readings; shareNone for a fixed window.
	share share
	// bySrc is the window's sum by source: of every entry in a fixed
	// window, of the history entries in a rolling one (srcSum reads the
	// whole).
	bySrc [numSources]float64
	// byModel is the evaluation entries' sum per model: the lane's own
	// share of the window, which a scheduler reads before a raise (a
	// fixed window's; a rolling window's are in its log: modelSum).
	byModel []float64
	log     *quotaLog
	next    int64 // the log's index of the first entry not yet expired here
	// The wait cursor: wf is the sum of the held entries in [next, wc).
	// wait moves wc to where the entries that free first let a try in,
	// instead of summing from next on every refused try: under retry burn
	// a minute window holds a minute of refused tries, and summing them on
	// each refusal would be quadratic. Every amount is a whole number (a try's
	// tokens, one request, a declared history's minute, apportioned whole),
	// so the sums are exact in any order and the cursor finds the entry a
	// scan from next would.
	wc      int64
	wf      float64
	span    Time
	resetAt Time // fixed: the next reset instant
	dim     int
}

// quotaPool is one organisation's (or virtual key's) quota windows.
type quotaPool struct {
	windows []quotaWindow
	logs    []*quotaLog // one per span, shared by its windows
	// countRejected: a rejected try still counts one request against the
	// request windows (RPM, RPD) — retry burn.
	countRejected bool
	budget, spent float64 // token budget of a virtual key (0 = none)
	// split: a try's input and output are separate entries (entryTry,
	// entryOut), because some window counts only one of them or output is
	// counted when the call ends; else one entryTry of input + output.
	split bool
	// accel is the organisation's acceleration limit (nil: none).
	accel *accelLimit
	// plain: no budget, not split, and every window rolling, without a
	// bucket, counting requests or tokens; admitCost takes such a pool
	// (without an acceleration limit) on a path of its own (admitPlain),
	// which reads its logs (one or two spans) as log0 and log1 (nil: none).
	plain      bool
	log0, log1 *quotaLog
}

// poolSpec is what a quota pool is built from.
type poolSpec struct {
	limits        [scenario.NumDims]float64
	countRejected bool
	dailyReset    *time.Duration // time of day; nil = rolling
	clock         time.Duration  // time of day (and week) at virtual time 0
	budget        float64
	underLimit    bool // AdmitUnderLimit
	models        int  // models in the catalogue (per-model sums)
	// meters is each dimension's meter (MeterDefault: rolling, or fixed
	// for a daily quota with dailyReset); split as quotaPool.split.
	meters [scenario.NumDims]scenario.MeterKind
	split  bool
	// burst is each dimension's enforcement interval (0: its span): a
	// window of that span holding limit × burst / span, whole and at least
	// 1, or a bucket of that capacity refilled at limit per span.
	burst [scenario.NumDims]time.Duration
}

// newQuotaPool has a window for each quota set (0 = none).
func newQuotaPool(p poolSpec) quotaPool {
	var ws []quotaWindow
	for d, limit := range p.limits {
		if limit <= 0 {
			continue
		}
		span := FromDuration(scenario.DimSpan(d))
		burst := span
		if b := FromDuration(p.burst[d]); b > 0 && b < span {
			burst = b
		}
		counts := scenario.DimCount(d)
		q := quotaWindow{dim: d, limit: limit, span: span, counts: counts, underLimit: p.underLimit,
			kinds: kindsOf(counts), one: counts == scenario.CountsRequests, byModel: make([]float64, p.models)}
		meter := p.meters[d]
		if meter == scenario.MeterDefault {
			meter = scenario.MeterRolling
			if p.dailyReset != nil && span == 24*Hour {
				meter = scenario.MeterFixed
			}
		}
		if burst < span && meter != scenario.MeterTokenBucket {
			// A window over the shorter interval, holding its share of
			// the limit (whole: every sum stays exact).
			q.span, q.limit = burst, burstShare(limit, burst, span)
		}
		switch meter {
		case scenario.MeterFixed:
			q.fixed = true
			at := Time(0) // a minute quota resets at every whole minute of the clock
			if span == 24*Hour && p.dailyReset != nil {
				at = FromDuration(*p.dailyReset)
			}
			q.resetAt = nextReset(FromDuration(p.clock), at, q.span)
		case scenario.MeterTokenBucket:
			// Full a day before the run: declared history drains it.
			b := newTokenBucket(limit, burstShare(limit, burst, span), span, -24*Hour)
			q.bucket = &b
			q.underLimit = false
		}
		ws = append(ws, q)
	}
	pool := quotaPool{windows: ws, countRejected: p.countRejected, budget: p.budget, split: p.split}
	pool.plain = p.budget == 0 && !p.split
	for i := range pool.windows {
		q := &pool.windows[i]
		if q.fixed || q.bucket != nil || (q.counts != scenario.CountsRequests && q.counts != scenario.CountsTokens) {
			pool.plain = false
		}
	}
	for i := range pool.windows {
		q := &pool.windows[i]
		var l *quotaLog
		for _, x := range pool.logs {
			if x.span == q.span {
				l = x
			}
		}
		if l == nil {
			l = newQuotaLog(q.span, p.models)
			pool.logs = append(pool.logs, l)
		}
		l.add(q)
	}
	switch len(pool.logs) {
	case 0:
	case 1:
		pool.log0 = pool.logs[0]
	case 2:
		pool.log0, pool.log1 = pool.logs[0], pool.logs[1]
	default:
		pool.plain = false // more spans than admitPlain reads
	}
	return pool
}

// burstShare is limit × burst / span rounded down, at least 1: what a
// quota enforced over burst holds.
func burstShare(limit float64, burst, span Time) float64 {
	if burst >= span {
		return limit
	}
	return max(1, math.Floor(limit*float64(burst)/float64(span)))
}

// nextReset is the first virtual time > 0 whose time within a period of
// span (a day, a minute) is at, given the time of day (clock) at virtual
// time 0.
func nextReset(clock, at, span Time) Time {
	d := ((at-clock%span)%span + span) % span
	if d == 0 {
		d = span
	}
	return d
}

// reset drops a fixed window's entries when its reset instant has passed
// (rolling windows and buckets are expired by their log, quotaLog.expire).
func (q *quotaWindow) reset(now Time) {
	if now < q.resetAt {
		return
	}
	l := q.log
	q.next = l.end()
	q.wc, q.wf = q.next, 0
	q.sum, q.bySrc = 0, [numSources]float64{}
	clear(q.byModel)
	for q.resetAt <= now {
		q.resetAt += q.span
	}
	l.trim()
}

// srcSum is the window's sum of the entries of src: of a rolling
// window's tries, its share of the log's tally of src, and of every
// model's if src is the evaluation calls' (a try of a model is one).
func (q *quotaWindow) srcSum(src source) float64 {
	if q.share == shareNone {
		return q.bySrc[src]
	}
	l := q.log
	l.tally()
	v := l.bySrc[src].of(q.share)
	if src == srcEval {
		for m := range l.byModel {
			v += l.byModel[m].of(q.share)
		}
	}
	return q.bySrc[src] + v
}

// modelSum is the window's sum of model's evaluation entries.
func (q *quotaWindow) modelSum(model int32) float64 {
	if q.share == shareNone {
		return q.byModel[model]
	}
	q.log.tally()
	return q.log.byModel[model].of(q.share)
}

// admits says whether a window holding sum lets a try of amt in.
func (q *quotaWindow) admits(sum, amt float64) bool {
	if q.underLimit {
		return sum < q.limit
	}
	return sum+amt <= q.limit
}

// wait is how long until amt is let in; 0 if it is now, neverFits if it never can
// (it must fit and is larger than the limit).
func (q *quotaWindow) wait(now Time, amt float64) Time {
	if b := q.bucket; b != nil {
		// Refilled here, when read, not on every expire: a refill over
		// [t0, t2] is exactly one over [t0, t1] then [t1, t2].
		b.advance(now)
		return b.wait(amt)
	}
	if amt > q.limit && !q.underLimit {
		return neverFits
	}
	if q.admits(q.sum, amt) {
		return 0
	}
	if q.fixed {
		return q.resetAt - now
	}
	// The shortest run of held entries from next whose freeing lets amt
	// in ends at the entry that frees last: move wc right until the run
	// [next, wc) lets it in, then left while it still would without its
	// last held entry.
	l, end := q.log, q.log.end()
	for !q.admits(q.sum-q.wf, amt) {
		if q.wc == end {
			return q.span
		}
		if e := l.at(q.wc); q.holds(e.kind) {
			q.wf += q.of(e)
		}
		q.wc++
	}
	for {
		if q.wc <= q.next { // cannot be: sum alone does not admit (checked above)
			panic("sim: quota wait cursor ran past the window's first entry")
		}
		e := l.at(q.wc - 1)
		if !q.holds(e.kind) {
			q.wc--
			continue
		}
		if a := q.of(e); q.admits(q.sum-(q.wf-a), amt) {
			q.wc, q.wf = q.wc-1, q.wf-a
			continue
		}
		return e.t + q.span - now
	}
}

// tryCost is what a try counts: its input and its output as the pool's
// rules count them at admission (tokens windows count both).
type tryCost struct{ in, out float64 }

// amount is what a try of cost c counts in the window.
func (q *quotaWindow) amount(c tryCost) float64 {
	switch q.counts {
	case scenario.CountsTokens:
		return c.in + c.out
	case scenario.CountsInput:
		return c.in
	case scenario.CountsOutput:
		return c.out
	}
	return 1
}

// check says whether a try of tokens fits every window (and the budget)
// now, without counting it: 0 if it does, else how long until it would
// (negative: never, it is larger than a quota or the budget left).
func (o *quotaPool) check(now Time, tokens float64) Time {
	return o.checkCost(now, tryCost{in: tokens})
}

// expire brings every window up to now (quotaLog.expire).
func (o *quotaPool) expire(now Time) {
	for _, l := range o.logs {
		l.expire(now)
	}
}

// checkCost is check for a try of cost c.
func (o *quotaPool) checkCost(now Time, c tryCost) Time {
	if o.budget > 0 && o.spent+c.in+c.out > o.budget {
		return neverFits
	}
	o.expire(now)
	// Most tries fit every window at once, where wait's answer is 0 (the
	// sum, never negative, holds a try larger than the limit out): a loop
	// without calls, and waits only when some window refuses.
	for i := range o.windows {
		q := &o.windows[i]
		if q.bucket != nil || !q.admits(q.sum, q.amount(c)) {
			return o.waits(now, c)
		}
	}
	if o.accel != nil {
		return o.accel.wait(now, c)
	}
	return 0
}

// waits is how long until a try of cost c would fit every window (and the
// acceleration limit): 0 if it does now, neverFits if it never can.
func (o *quotaPool) waits(now Time, c tryCost) Time {
	var retryAfter Time
	for i := range o.windows {
		q := &o.windows[i]
		d := q.wait(now, q.amount(c))
		if d == neverFits {
			return neverFits
		}
		retryAfter = max(retryAfter, d)
	}
	if o.accel != nil {
		retryAfter = max(retryAfter, o.accel.wait(now, c))
	}
	return retryAfter
}

// commit counts an accepted try of model (-1: not an evaluation call) in
// every window.
func (o *quotaPool) commit(now Time, tokens float64, src source, model int32) {
	o.commitCost(now, tryCost{in: tokens}, src, model)
}

// commitCost is commit for a try of cost c: one entry of input + output,
// or in a split pool an entry of input and one of output (when it has any).
func (o *quotaPool) commitCost(now Time, c tryCost, src source, model int32) {
	o.spent += c.in + c.out
	if o.accel != nil {
		o.accel.commit(now, c)
	}
	if !o.split {
		o.push(newTry(now, c.in+c.out, src, model, entryTry))
		return
	}
	o.push(newTry(now, c.in, src, model, entryTry))
	if c.out > 0 {
		o.push(newTry(now, c.out, src, model, entryOut))
	}
}

func (o *quotaPool) push(e quotaEntry) {
	for _, l := range o.logs {
		l.push(e)
	}
}

// reserveWait is how long until an evaluation try of cost c would leave
// production its reserved share of every window: the window must admit c
// plus what of the share production does not hold yet (0: now; a try that
// cannot leave the share free at all is let go, to be checked as usual).
func (o *quotaPool) reserveWait(now Time, c tryCost, share float64) Time {
	var wait Time
	o.expire(now)
	for i := range o.windows {
		q := &o.windows[i]
		free := max(0, math.Ceil(share*q.limit)-q.srcSum(srcProd))
		// The share is kept whole whatever the admission rule: the try
		// must fit beside it.
		under := q.underLimit
		q.underLimit = false
		d := q.wait(now, q.amount(c)+free)
		q.underLimit = under
		if d < 0 {
			continue
		}
		wait = max(wait, d)
	}
	return wait
}

// countOutput counts output tokens when a call ends (output: at_end).
func (o *quotaPool) countOutput(now Time, out float64, src source, model int32) {
	if out <= 0 {
		return
	}
	o.expire(now)
	o.spent += out
	o.push(newTry(now, out, src, model, entryOut))
}

// giveBack returns output counted at admission but not produced to the
// token buckets that count output (output: max_tokens_reconciled). The
// windows' entries keep what was counted at admission: they only read.
func (o *quotaPool) giveBack(now Time, amt float64) {
	if amt <= 0 {
		return
	}
	for i := range o.windows {
		q := &o.windows[i]
		if b := q.bucket; b != nil && (q.counts == scenario.CountsTokens || q.counts == scenario.CountsOutput) {
			b.advance(now)
			b.give(amt)
		}
	}
}

// burn counts a rejected try against the request windows when the pool
// counts rejected tries; it reports whether it did.
func (o *quotaPool) burn(now Time, src source, model int32) bool {
	if !o.countRejected {
		return false
	}
	e := newTry(now, 0, src, model, entryBurn)
	if !o.plain {
		o.push(e)
		return true
	}
	// push in a plain pool: its requests windows hold a burn (1 each), its
	// tokens windows not (0); every window is rolling.
	for i := range o.windows {
		if q := &o.windows[i]; q.one {
			q.sum++
		}
	}
	for _, l := range o.logs {
		if l.kinds>>entryBurn&1 != 0 && !l.put(&e) { // else no window of the log holds it
			l.record(&e)
		}
	}
	return true
}
