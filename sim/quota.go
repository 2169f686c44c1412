package sim

import (
	"time"

	"github.com/evalsched/lab/internal/ring"
)

// Quota dimensions, in the order of OrgConfig's keys.
const (
	dimRPM = iota
	dimTPM
	dimRPD
	dimTPD
	numDims
)

// DimNames names the quota dimensions as scenario keys do.
var DimNames = [numDims]string{"rpm", "tpm", "rpd", "tpd"}

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
type quotaWindow struct {
	dim    int
	limit  float64
	span   Time
	tokens bool // counts tokens, else requests
	fixed  bool
	// underLimit: admission while below the limit, whatever the try's size
	// (AdmitUnderLimit); else the try must fit (AdmitFit).
	underLimit bool
	reset      Time // fixed: the next reset instant
	entries    ring.Ring[quotaEntry]
	sum        float64
	bySrc      [numSources]float64
	// byModel is the evaluation entries' sum per model: the lane's own
	// share of the window, which a scheduler reads before a raise.
	byModel []float64
}

type quotaEntry struct {
	t     Time
	amt   float64
	src   source
	model int32 // the evaluation call's model; -1 for production and history
}

// quotaPool is one organisation's (or virtual key's) quota windows.
type quotaPool struct {
	windows []quotaWindow
	// countRejected: a rejected try still counts one request against the
	// request windows (RPM, RPD) — retry burn.
	countRejected bool
	budget, spent float64 // token budget of a virtual key (0 = none)
}

// poolSpec is what a quota pool is built from.
type poolSpec struct {
	limits        [numDims]float64
	countRejected bool
	dailyReset    *time.Duration // time of day; nil = rolling
	clock         time.Duration  // time of day (and week) at virtual time 0
	budget        float64
	underLimit    bool // AdmitUnderLimit
	models        int  // models in the catalogue (per-model sums)
}

// newQuotaPool has a window for each quota set (0 = none).
func newQuotaPool(p poolSpec) quotaPool {
	spans := [numDims]Time{Minute, Minute, 24 * Hour, 24 * Hour}
	var ws []quotaWindow
	for d, limit := range p.limits {
		if limit <= 0 {
			continue
		}
		q := quotaWindow{dim: d, limit: limit, span: spans[d], tokens: d == dimTPM || d == dimTPD, underLimit: p.underLimit,
			byModel: make([]float64, p.models)}
		if p.dailyReset != nil && spans[d] == 24*Hour {
			q.fixed = true
			q.reset = nextReset(FromDuration(p.clock), FromDuration(*p.dailyReset))
		}
		ws = append(ws, q)
	}
	return quotaPool{windows: ws, countRejected: p.countRejected, budget: p.budget}
}

// nextReset is the first virtual time > 0 whose time of day is at, given
// the time of day (clock) at virtual time 0.
func nextReset(clock, at Time) Time {
	day := 24 * Hour
	d := ((at-clock%day)%day + day) % day
	if d == 0 {
		d = day
	}
	return d
}

func (q *quotaWindow) amount(tokens float64) float64 {
	if q.tokens {
		return tokens
	}
	return 1
}

func (q *quotaWindow) expire(now Time) {
	if q.fixed {
		if now >= q.reset {
			for q.entries.Len() > 0 {
				q.entries.Pop()
			}
			q.sum, q.bySrc = 0, [numSources]float64{}
			clear(q.byModel)
			for q.reset <= now {
				q.reset += q.span
			}
		}
		return
	}
	for q.entries.Len() > 0 && q.entries.Peek().t+q.span <= now {
		e := q.entries.Pop()
		q.sum -= e.amt
		q.bySrc[e.src] -= e.amt
		if e.model >= 0 {
			q.byModel[e.model] -= e.amt
		}
	}
	if q.entries.Len() == 0 {
		q.sum, q.bySrc = 0, [numSources]float64{} // no drift from float sums
		clear(q.byModel)
	}
}

// admits says whether a window holding sum lets a try of amt in.
func (q *quotaWindow) admits(sum, amt float64) bool {
	if q.underLimit {
		return sum < q.limit
	}
	return sum+amt <= q.limit
}

// wait is how long until amt is let in; 0 if it is now, -1 if it never can
// (it must fit and is larger than the limit).
func (q *quotaWindow) wait(now Time, amt float64) Time {
	if amt > q.limit && !q.underLimit {
		return -1
	}
	if q.admits(q.sum, amt) {
		return 0
	}
	if q.fixed {
		return q.reset - now
	}
	freed := 0.0
	for i := 0; i < q.entries.Len(); i++ {
		e := q.entries.At(i)
		freed += e.amt
		if q.admits(q.sum-freed, amt) {
			return e.t + q.span - now
		}
	}
	return q.span
}

func (q *quotaWindow) push(t Time, amt float64, src source, model int32) {
	q.entries.Push(quotaEntry{t: t, amt: amt, src: src, model: model})
	q.sum += amt
	q.bySrc[src] += amt
	if model >= 0 {
		q.byModel[model] += amt
	}
}

// check says whether a try of tokens fits every window (and the budget)
// now, without counting it: 0 if it does, else how long until it would
// (negative: never, it is larger than a quota or the budget left).
func (o *quotaPool) check(now Time, tokens float64) Time {
	if o.budget > 0 && o.spent+tokens > o.budget {
		return -1
	}
	var retryAfter Time
	for i := range o.windows {
		q := &o.windows[i]
		q.expire(now)
		d := q.wait(now, q.amount(tokens))
		if d < 0 {
			return -1
		}
		retryAfter = max(retryAfter, d)
	}
	return retryAfter
}

// commit counts an accepted try of model (-1: not an evaluation call) in
// every window.
func (o *quotaPool) commit(now Time, tokens float64, src source, model int32) {
	o.spent += tokens
	for i := range o.windows {
		q := &o.windows[i]
		q.push(now, q.amount(tokens), src, model)
	}
}

// burn counts a rejected try against the request windows when the pool
// counts rejected tries; it reports whether it did.
func (o *quotaPool) burn(now Time, src source, model int32) bool {
	if !o.countRejected {
		return false
	}
	for i := range o.windows {
		if q := &o.windows[i]; !q.tokens {
			q.push(now, 1, src, model)
		}
	}
	return true
}

// admit checks every window; if all have room the try is counted in each
// and ok is true, else retryAfter says when it would fit (negative: never).
func (o *quotaPool) admit(now Time, tokens float64, src source, model int32) (retryAfter Time, ok bool) {
	if retryAfter = o.check(now, tokens); retryAfter != 0 {
		return retryAfter, false
	}
	o.commit(now, tokens, src, model)
	return 0, true
}

// use is the fullest window's share of its limit at now.
func (o *quotaPool) use(now Time) float64 {
	u := 0.0
	for i := range o.windows {
		q := &o.windows[i]
		q.expire(now)
		u = max(u, q.sum/q.limit)
	}
	return u
}

// dimUse is, per dimension, the window's use at now as a share of its
// limit: by everyone and by one source (0 where no quota is set). It reads
// without expiring entries, so reading never changes the windows' sums.
func (o *quotaPool) dimUse(now Time, src source) (all, by [numDims]float64) {
	for i := range o.windows {
		q := &o.windows[i]
		sum, bySrc := q.live(now)
		all[q.dim] = sum / q.limit
		by[q.dim] = bySrc[src] / q.limit
	}
	return all, by
}

// modelUse is, per dimension, model's own evaluation entries in the window
// at now as a share of its limit (0 where no quota is set).
func (o *quotaPool) modelUse(now Time, model int32) (by [numDims]float64) {
	for i := range o.windows {
		q := &o.windows[i]
		by[q.dim] = q.modelLive(now, model) / q.limit
	}
	return by
}

// modelLive is model's sum at now, leaving out entries that have expired
// (as live does: reading must not move the window).
func (q *quotaWindow) modelLive(now Time, model int32) float64 {
	if q.fixed && now >= q.reset {
		return 0
	}
	v := q.byModel[model]
	for i := 0; !q.fixed && i < q.entries.Len(); i++ {
		e := q.entries.At(i)
		if e.t+q.span > now {
			break
		}
		if e.model == model {
			v -= e.amt
		}
	}
	return max(v, 0)
}

// live is the window's sums at now, leaving out entries that have expired.
func (q *quotaWindow) live(now Time) (float64, [numSources]float64) {
	if q.fixed {
		if now >= q.reset {
			return 0, [numSources]float64{}
		}
		return q.sum, q.bySrc
	}
	sum, by := q.sum, q.bySrc
	for i := 0; i < q.entries.Len(); i++ {
		e := q.entries.At(i)
		if e.t+q.span > now {
			break
		}
		sum -= e.amt
		by[e.src] -= e.amt
	}
	return max(sum, 0), by
}

// limit is the pool's limit in a dimension (0: none).
func (o *quotaPool) limit(dim int) float64 {
	for i := range o.windows {
		if o.windows[i].dim == dim {
			return o.windows[i].limit
		}
	}
	return 0
}

// seedHistory counts usage declared before the run: requests and tokens
// spread minute by minute over the 24 hours before virtual time 0, in
// proportion to the hourly weights (flat when none) of the clock hour.
func (o *quotaPool) seedHistory(h *QuotaHistory, clock time.Duration) {
	if h == nil || (h.Requests == 0 && h.Tokens == 0) {
		return
	}
	var w [1440]float64
	total := 0.0
	for m := range w {
		t := -Time(1440-m) * Minute
		w[m] = 1
		if len(h.Hourly) == 24 {
			tod := ((FromDuration(clock)+t)%(24*Hour) + 24*Hour) % (24 * Hour)
			w[m] = h.Hourly[int(tod/Hour)]
		}
		total += w[m]
	}
	for i := range o.windows {
		q := &o.windows[i]
		amt := h.Requests
		if q.tokens {
			amt = h.Tokens
		}
		for m := range w {
			t := -Time(1440-m) * Minute
			if x := amt * w[m] / total; x > 0 && (!q.fixed || t >= q.reset-q.span) {
				q.push(t, x, srcHistory, -1)
			}
		}
		q.expire(0)
	}
}
